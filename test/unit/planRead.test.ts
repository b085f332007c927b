import { describe, expect, it } from 'vitest';
import { TX_NOW } from '../../src/db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../../src/db/rows.js';
import { NEWER_READ_WRITTEN } from '../../src/domain/observationOrder.js';
import { DEFAULT_WATCH_POLICY, nextReconcileAt } from '../../src/domain/reconcileSchedule.js';
import type { GatewayTransaction, GatewayWithdrawal } from '../../src/gateway/types.js';
import type { ChangeContext, ReadInput } from '../../src/mirror/inputs.js';
import { planRead } from '../../src/mirror/planRead.js';
import { SALE } from '../../src/mirror/saleResource.js';
import { WITHDRAWAL } from '../../src/mirror/withdrawalResource.js';
import {
  CREATED,
  EARLIER,
  FakeRows,
  FakeWrites,
  gatewayTransaction,
  gatewayWithdrawal,
  LATER,
  NOW,
  planContext,
  saleRow,
  withdrawalRow,
} from '../support/planHarness.js';

// What a gateway answer does to the mirror: insert or update, moves, stale reads, history rows,
// discrepancies and their source.

const RECONCILE: ChangeContext = { source: 'reconcile', inboxEventId: null };
const CONFIRMATION: ChangeContext = { source: 'webhook', inboxEventId: 502 };

type Purpose = ReadInput['purpose'];

function saleRead(
  record: GatewayTransaction,
  purpose: Purpose = 'reconcile',
  readAt: Date = LATER,
): ReadInput & { record: GatewayTransaction } {
  return {
    kind: 'read',
    resource: 'sale',
    record,
    readAt,
    context: purpose === 'reconcile' ? RECONCILE : CONFIRMATION,
    purpose,
    runId: purpose === 'reconcile' ? 77 : null,
  };
}

function withdrawalRead(
  record: GatewayWithdrawal,
  purpose: Purpose = 'reconcile',
  readAt: Date = LATER,
): ReadInput & { record: GatewayWithdrawal } {
  return {
    kind: 'read',
    resource: 'withdrawal',
    record,
    readAt,
    context: purpose === 'reconcile' ? RECONCILE : CONFIRMATION,
    purpose,
    runId: purpose === 'reconcile' ? 77 : null,
  };
}

function planSale(rows: FakeRows<SaleRow>, writes: FakeWrites, input: ReturnType<typeof saleRead>) {
  return planRead(SALE, rows.asRows(), input, planContext(writes));
}

function planWithdrawal(
  rows: FakeRows<WithdrawalRow>,
  writes: FakeWrites,
  input: ReturnType<typeof withdrawalRead>,
) {
  return planRead(WITHDRAWAL, rows.asRows(), input, planContext(writes));
}

const PAID_NEXT = nextReconcileAt(
  {
    resource: 'sale',
    status: 'PAGO',
    paymentMethod: 'PIX',
    createdAt: CREATED,
    completedAt: EARLIER,
  },
  NOW,
  DEFAULT_WATCH_POLICY,
);

describe('a read of a record the mirror lacks', () => {
  it('inserts the sale with every field read, when it was read and its next check', () => {
    const rows = new FakeRows<SaleRow>();
    const writes = new FakeWrites();
    const read = gatewayTransaction();
    expect(planSale(rows, writes, saleRead(read))).toEqual({
      outcome: 'applied',
      from: null,
      to: 'PAGO',
      needsReconcile: false,
      differences: 0,
    });
    expect(rows.inserted.get(7)).toStrictEqual({
      ...SALE.readValues(read),
      nextReconcileAt: PAID_NEXT,
      reconcileRequestedAt: null,
      reconcileReason: null,
      gatewayReadAt: LATER,
      lastReconciledAt: TX_NOW,
      statusObservedAt: LATER,
      statusSetBy: 'read',
    });
    expect(rows.inserted.get(7)).toMatchObject({
      amountCents: 15_050,
      netAmountCents: 14_000,
      systemFeeCents: 1_050,
      reserveAmountCents: 300,
      completedAt: EARLIER,
      shipping: { city: 'Recife' },
    });
    // fee_cents is generated from system_fee_cents: the read never writes it.
    expect(rows.inserted.get(7)).not.toHaveProperty('feeCents');
    expect(writes.items).toEqual([
      {
        rows: [
          {
            saleId: 7,
            itemId: 1,
            title: 'Camiseta',
            unitPriceCents: 15_050,
            quantity: 1,
            tangible: true,
          },
        ],
        from: 'gateway',
      },
    ]);
    expect(writes.history).toEqual([
      {
        resource: 'sale',
        id: 7,
        from: null,
        to: 'PAGO',
        context: RECONCILE,
        entered: true,
        observedAt: LATER,
      },
    ]);
    expect(writes.discrepancies).toEqual([]);
  });

  it('does not mark a reconcile pass when the read was not one', () => {
    const rows = new FakeRows<SaleRow>();
    planSale(rows, new FakeWrites(), saleRead(gatewayTransaction({ shipping: null }), 'api'));
    expect(rows.inserted.get(7)).not.toHaveProperty('lastReconciledAt');
    expect(rows.inserted.get(7)?.shipping).toBeNull();
  });

  it('inserts a withdrawal with the gateway’s update time', () => {
    const rows = new FakeRows<WithdrawalRow>();
    const writes = new FakeWrites();
    planWithdrawal(rows, writes, withdrawalRead(gatewayWithdrawal(), 'confirmation'));
    expect(rows.inserted.get(31)).toStrictEqual({
      id: 31,
      status: 'PROCESSING',
      amountCents: 15_050,
      netAmountCents: 14_605,
      feeFixedCents: 200,
      feeVariableCents: 245,
      feeTotalCents: 445,
      pixKey: 'ana@x.com',
      pixKeyType: 'EMAIL',
      createdAt: CREATED,
      gatewayUpdatedAt: LATER,
      nextReconcileAt: nextReconcileAt(
        { resource: 'withdrawal', status: 'PROCESSING', createdAt: CREATED },
        NOW,
      ),
      reconcileRequestedAt: null,
      reconcileReason: null,
      gatewayReadAt: LATER,
      statusObservedAt: LATER,
      statusSetBy: 'read',
    });
    expect(writes.items).toEqual([{ rows: [], from: 'gateway' }]);
    expect(writes.history).toMatchObject([
      { resource: 'withdrawal', from: null, to: 'PROCESSING', context: CONFIRMATION },
    ]);
  });
});

describe('a read of the status the mirror holds', () => {
  it('corrects every field the mirror held otherwise and records each as a discrepancy', () => {
    const rows = new FakeRows(
      saleRow({
        status: 'PAGO',
        amountCents: 15_000,
        customerName: 'Maria',
        gatewayReadAt: EARLIER,
      }),
    );
    const writes = new FakeWrites();
    const result = planSale(rows, writes, saleRead(gatewayTransaction()));
    expect(result).toEqual({ outcome: 'noop', differences: 2 });
    expect(rows.updates).toHaveLength(1);
    expect(rows.written(7)).toMatchObject({
      amountCents: 15_050,
      customerName: 'Ana',
      customerEmail: 'ana@x.com',
      netAmountCents: 14_000,
      nextReconcileAt: PAID_NEXT,
      reconcileRequestedAt: null,
      reconcileReason: null,
      gatewayReadAt: LATER,
      lastReconciledAt: TX_NOW,
      statusObservedAt: LATER,
    });
    expect(rows.written(7)).not.toHaveProperty('status');
    expect(writes.discrepancies).toEqual([
      {
        resource: 'sale',
        id: 7,
        differences: [
          { field: 'amount_cents', mirrorValue: '15000', gatewayValue: '15050' },
          { field: 'customer_name', mirrorValue: 'Maria', gatewayValue: 'Ana' },
        ],
        record: { action: 'corrected', source: 'reconcile', inboxEventId: null, runId: 77 },
      },
    ]);
    expect(writes.items).toMatchObject([{ from: 'gateway' }]);
    expect(writes.history).toEqual([]);
  });

  it('keeps the mirror’s later observation of its status', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusObservedAt: NOW }));
    planSale(rows, new FakeWrites(), saleRead(gatewayTransaction(), 'confirmation'));
    expect(rows.written(7).statusObservedAt).toBe(NOW);
  });

  it('takes the read’s FAILED for the REJECTED the mirror holds: no move', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'REJECTED', gatewayUpdatedAt: null }));
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      withdrawalRead(gatewayWithdrawal({ status: 'FAILED' })),
    );
    expect(result).toEqual({ outcome: 'noop', differences: 0 });
    expect(rows.written(31)).not.toHaveProperty('status');
    expect(rows.written(31)).toMatchObject({ gatewayUpdatedAt: LATER, nextReconcileAt: null });
    expect(writes.history).toEqual([]);
  });
});

describe('a read that moves the record', () => {
  it('enters the move and, in a reconcile pass, records the status as a discrepancy', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE' }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, saleRead(gatewayTransaction()));
    expect(result).toEqual({
      outcome: 'applied',
      from: 'PENDENTE',
      to: 'PAGO',
      needsReconcile: false,
      differences: 1,
    });
    expect(rows.written(7)).toMatchObject({ status: 'PAGO', statusObservedAt: LATER });
    expect(writes.discrepancies).toMatchObject([
      {
        differences: [{ field: 'status', mirrorValue: 'PENDENTE', gatewayValue: 'PAGO' }],
        record: { source: 'reconcile', runId: 77 },
      },
    ]);
    expect(writes.history).toEqual([
      {
        resource: 'sale',
        id: 7,
        from: 'PENDENTE',
        to: 'PAGO',
        context: RECONCILE,
        entered: true,
        observedAt: LATER,
      },
    ]);
  });

  it('is no discrepancy when the worker’s read confirms a notified move', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE', amountCents: 1 }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, saleRead(gatewayTransaction(), 'confirmation'));
    expect(result).toMatchObject({ outcome: 'applied', differences: 1 });
    expect(writes.discrepancies).toEqual([
      {
        resource: 'sale',
        id: 7,
        differences: [{ field: 'amount_cents', mirrorValue: '1', gatewayValue: '15050' }],
        record: { action: 'corrected', source: 'confirmation', inboxEventId: 502, runId: null },
      },
    ]);
    expect(writes.history).toMatchObject([{ context: CONFIRMATION }]);
  });

  it('moves strictly forward even when begun before the mirror’s status was observed', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE', statusObservedAt: LATER }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, saleRead(gatewayTransaction(), 'reconcile', EARLIER));
    expect(result).toMatchObject({ outcome: 'applied', from: 'PENDENTE', to: 'PAGO' });
    expect(rows.written(7)).toMatchObject({ statusObservedAt: LATER, gatewayReadAt: EARLIER });
    expect(writes.history).toMatchObject([{ observedAt: EARLIER }]);
  });

  it('judges the move by the stored payment method, not the read’s', () => {
    // EM_PROCESSAMENTO follows PENDENTE on a card sale only.
    const rows = new FakeRows(
      saleRow({ status: 'PENDENTE', paymentMethod: 'CREDIT_CARD', statusObservedAt: LATER }),
    );
    const result = planSale(
      rows,
      new FakeWrites(),
      saleRead(
        gatewayTransaction({ status: 'EM_PROCESSAMENTO', paymentMethod: 'PIX' }),
        'reconcile',
        EARLIER,
      ),
    );
    expect(result).toMatchObject({ outcome: 'applied', from: 'PENDENTE', to: 'EM_PROCESSAMENTO' });
  });
});

describe('a stale read', () => {
  it('asks for another read when begun before the mirror’s status and not strictly forward', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusObservedAt: LATER }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      saleRead(gatewayTransaction({ status: 'MED' }), 'reconcile', EARLIER),
    );
    expect(result).toEqual({
      outcome: 'stale',
      reason: 'the mirror observed PAGO after this read of MED began',
    });
    expect(rows.updates).toEqual([
      {
        id: 7,
        fields: {
          reconcileRequestedAt: TX_NOW,
          reconcileReason: 'a gateway read older than the mirror status',
        },
      },
    ]);
    expect(writes.history).toEqual([]);
    expect(writes.items).toEqual([]);
    expect(writes.discrepancies).toEqual([]);
  });

  it('changes nothing when a newer answer is already written', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE', gatewayReadAt: LATER }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, saleRead(gatewayTransaction(), 'reconcile', EARLIER));
    expect(result).toEqual({ outcome: 'stale', reason: NEWER_READ_WRITTEN });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([]);
  });

  it('changes nothing when the withdrawal’s update time is older than the mirror’s', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'PROCESSING', gatewayUpdatedAt: LATER }));
    const result = planWithdrawal(
      rows,
      new FakeWrites(),
      withdrawalRead(
        gatewayWithdrawal({ status: 'PENDING', updatedAt: EARLIER }),
        'reconcile',
        NOW,
      ),
    );
    expect(result).toEqual({ outcome: 'stale', reason: NEWER_READ_WRITTEN });
    expect(rows.updates).toEqual([]);
  });

  it('judges a withdrawal read without update time by when it was read', () => {
    const rows = new FakeRows(
      withdrawalRow({ status: 'PENDING', gatewayUpdatedAt: LATER, amountCents: 15_000 }),
    );
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      withdrawalRead(gatewayWithdrawal({ status: 'PROCESSING', updatedAt: null }), 'api', NOW),
    );
    expect(result).toMatchObject({ outcome: 'applied', from: 'PENDING', to: 'PROCESSING' });
    expect(rows.written(31)).toMatchObject({ status: 'PROCESSING', statusSetBy: 'api' });
    expect(writes.discrepancies).toMatchObject([
      { differences: [{ field: 'amount_cents' }], record: { source: 'confirmation' } },
    ]);
  });
});
