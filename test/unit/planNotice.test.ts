import { describe, expect, it } from 'vitest';
import { TX_NOW } from '../../src/db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../../src/db/rows.js';
import { DEFAULT_WATCH_POLICY, nextReconcileAt } from '../../src/domain/reconcileSchedule.js';
import type { ChangeContext, NoticeInput, Provenance } from '../../src/mirror/inputs.js';
import { planNotice } from '../../src/mirror/planNotice.js';
import { SALE } from '../../src/mirror/saleResource.js';
import { WITHDRAWAL } from '../../src/mirror/withdrawalResource.js';
import type { Notice } from '../../src/notifications/notification.js';
import {
  CREATED,
  EARLIER,
  FakeRows,
  FakeWrites,
  LATER,
  NOW,
  planContext,
  saleNotice,
  saleRow,
  withdrawalNotice,
  withdrawalRow,
} from '../support/planHarness.js';

// What a notification does to the mirror, decided by the record's state machine: insert or
// update, moves, stale and late observations, history rows and their source.

const POSTBACK: ChangeContext = { source: 'postback', inboxEventId: 501 };
const WEBHOOK: ChangeContext = { source: 'webhook', inboxEventId: 502 };

function input<N extends Notice>(
  notice: N,
  overrides: Partial<Omit<NoticeInput<N>, 'notice'>> = {},
): NoticeInput<N> {
  return {
    kind: 'notice',
    notice,
    provenance: 'signed' as Provenance,
    observedAt: LATER,
    context: POSTBACK,
    ambiguity: 'read',
    ...overrides,
  };
}

function planSale(
  rows: FakeRows<SaleRow>,
  writes: FakeWrites,
  notice: NoticeInput<Notice & { kind: 'sale' }>,
) {
  return planNotice(SALE, rows.asRows(), notice, planContext(writes));
}

function planWithdrawal(
  rows: FakeRows<WithdrawalRow>,
  writes: FakeWrites,
  notice: NoticeInput<Notice & { kind: 'withdrawal' }>,
) {
  return planNotice(WITHDRAWAL, rows.asRows(), notice, planContext(writes));
}

describe('a notice of a record the mirror lacks', () => {
  it('inserts the sale with every notified field, its next check and its observation', () => {
    const rows = new FakeRows<SaleRow>();
    const writes = new FakeWrites();
    const notice = saleNotice({ status: 'PAGO' });
    expect(planSale(rows, writes, input(notice))).toEqual({
      outcome: 'applied',
      from: null,
      to: 'PAGO',
      needsReconcile: false,
      differences: 0,
    });
    expect(rows.inserted.get(7)).toStrictEqual({
      ...SALE.noticeValues(notice),
      nextReconcileAt: nextReconcileAt(
        {
          resource: 'sale',
          status: 'PAGO',
          paymentMethod: 'PIX',
          createdAt: CREATED,
          completedAt: null,
        },
        NOW,
        DEFAULT_WATCH_POLICY,
      ),
      statusObservedAt: LATER,
      statusSetBy: 'signed',
    });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([
      {
        resource: 'sale',
        id: 7,
        from: null,
        to: 'PAGO',
        context: POSTBACK,
        entered: true,
        observedAt: LATER,
      },
    ]);
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
        from: 'notice',
      },
    ]);
  });

  it('schedules a sale notified without a creation time from now', () => {
    const rows = new FakeRows<SaleRow>();
    planSale(rows, new FakeWrites(), input(saleNotice({ status: 'PENDENTE', createdAt: null })));
    expect(rows.inserted.get(7)?.nextReconcileAt).toEqual(
      nextReconcileAt(
        {
          resource: 'sale',
          status: 'PENDENTE',
          paymentMethod: 'PIX',
          createdAt: NOW,
          completedAt: null,
        },
        NOW,
        DEFAULT_WATCH_POLICY,
      ),
    );
  });

  it('inserts a withdrawal with its gateway update time', () => {
    const rows = new FakeRows<WithdrawalRow>();
    const writes = new FakeWrites();
    const notice = withdrawalNotice({ status: 'PROCESSING' });
    const result = planWithdrawal(rows, writes, input(notice, { context: WEBHOOK }));
    expect(result).toMatchObject({ outcome: 'applied', from: null, to: 'PROCESSING' });
    expect(rows.inserted.get(31)).toMatchObject({
      id: 31,
      status: 'PROCESSING',
      amountCents: 15_050,
      gatewayUpdatedAt: LATER,
      externalId: 'bank-31',
      processedAt: LATER,
      statusObservedAt: LATER,
    });
    expect(rows.inserted.get(31)?.nextReconcileAt).toEqual(
      nextReconcileAt({ resource: 'withdrawal', status: 'PROCESSING', createdAt: CREATED }, NOW),
    );
    expect(writes.history).toMatchObject([{ resource: 'withdrawal', context: WEBHOOK }]);
    expect(writes.items).toEqual([{ rows: [], from: 'notice' }]);
  });

  it('inserts nothing for a status the payment method cannot have', () => {
    const rows = new FakeRows<SaleRow>();
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'CHARGEBACK', paymentMethod: 'PIX' })),
    );
    expect(result).toEqual({
      outcome: 'invalid',
      reason: 'CHARGEBACK is impossible on a PIX sale',
    });
    expect(rows.inserted.size).toBe(0);
    expect(writes.history).toEqual([]);
  });
});

describe('a notice of the status the mirror holds', () => {
  it('fills only what the mirror lacks and keeps the later observation', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', customerName: 'Maria' }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, input(saleNotice({ status: 'PAGO' })));
    expect(result).toEqual({ outcome: 'noop', differences: 0 });
    expect(rows.updates).toEqual([
      {
        id: 7,
        fields: {
          customerEmail: 'ana@x.com',
          pixCode: 'pix-code',
          externalTransactionId: 'ext-7',
          statusObservedAt: LATER,
          statusSetBy: 'signed',
        },
      },
    ]);
    expect(writes.history).toEqual([]);
    expect(writes.items).toMatchObject([{ from: 'notice' }]);
    expect(writes.items[0]?.rows).toHaveLength(1);
  });

  it('keeps the mirror’s observation when it is the later one', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusObservedAt: LATER }));
    planSale(
      rows,
      new FakeWrites(),
      input(saleNotice({ status: 'PAGO' }), { observedAt: EARLIER }),
    );
    expect(rows.written(7).statusObservedAt).toBe(LATER);
  });

  it('moves a withdrawal’s gateway update time forward, never back', () => {
    const newer = new FakeRows(withdrawalRow({ status: 'PROCESSING', gatewayUpdatedAt: EARLIER }));
    planWithdrawal(
      newer,
      new FakeWrites(),
      input(withdrawalNotice({ status: 'PROCESSING', updatedAt: LATER }), { context: WEBHOOK }),
    );
    expect(newer.written(31).gatewayUpdatedAt).toBe(LATER);

    const same = new FakeRows(withdrawalRow({ status: 'PROCESSING', gatewayUpdatedAt: LATER }));
    planWithdrawal(
      same,
      new FakeWrites(),
      input(withdrawalNotice({ status: 'PROCESSING', updatedAt: LATER }), { context: WEBHOOK }),
    );
    expect(same.written(31)).not.toHaveProperty('gatewayUpdatedAt');

    const unknown = new FakeRows(withdrawalRow({ status: 'PROCESSING', gatewayUpdatedAt: null }));
    planWithdrawal(
      unknown,
      new FakeWrites(),
      input(withdrawalNotice({ status: 'PROCESSING', updatedAt: EARLIER }), { context: WEBHOOK }),
    );
    expect(unknown.written(31).gatewayUpdatedAt).toBe(EARLIER);
  });
});

describe('a notice that moves the record', () => {
  it('moves a sale forward along its machine and enters the move in the history', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE', customerName: 'Maria' }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, input(saleNotice({ status: 'PAGO' })));
    expect(result).toEqual({
      outcome: 'applied',
      from: 'PENDENTE',
      to: 'PAGO',
      needsReconcile: false,
      differences: 0,
    });
    expect(rows.updates).toHaveLength(1);
    expect(rows.written(7)).toStrictEqual({
      customerEmail: 'ana@x.com',
      pixCode: 'pix-code',
      externalTransactionId: 'ext-7',
      nextReconcileAt: nextReconcileAt(
        {
          resource: 'sale',
          status: 'PAGO',
          paymentMethod: 'PIX',
          createdAt: CREATED,
          completedAt: null,
        },
        NOW,
        DEFAULT_WATCH_POLICY,
      ),
      status: 'PAGO',
      statusSetBy: 'signed',
      statusObservedAt: LATER,
    });
    expect(writes.history).toEqual([
      {
        resource: 'sale',
        id: 7,
        from: 'PENDENTE',
        to: 'PAGO',
        context: POSTBACK,
        entered: true,
        observedAt: LATER,
      },
    ]);
    expect(writes.items).toMatchObject([{ from: 'notice' }]);
  });

  it('moves strictly forward even when observed before the mirror’s status', () => {
    const rows = new FakeRows(saleRow({ status: 'PENDENTE', statusObservedAt: LATER }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'PAGO' }), { observedAt: EARLIER }),
    );
    expect(result).toMatchObject({ outcome: 'applied', from: 'PENDENTE', to: 'PAGO' });
    expect(rows.written(7)).toMatchObject({ status: 'PAGO', statusObservedAt: LATER });
    expect(writes.history).toMatchObject([{ observedAt: EARLIER }]);
  });

  it('moves a withdrawal and writes the gateway update time it carries', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'PENDING' }));
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'COMPLETED' }), {
        context: WEBHOOK,
        provenance: 'unverified',
      }),
    );
    expect(result).toMatchObject({ outcome: 'applied', from: 'PENDING', to: 'COMPLETED' });
    expect(rows.written(31)).toMatchObject({
      status: 'COMPLETED',
      gatewayUpdatedAt: LATER,
      nextReconcileAt: null,
      externalId: 'bank-31',
    });
    expect(writes.history).toMatchObject([{ from: 'PENDING', to: 'COMPLETED', context: WEBHOOK }]);
  });

  it('refuses a status the stored payment method cannot have', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', paymentMethod: 'CREDIT_CARD' }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'MED', paymentMethod: 'PIX' })),
    );
    expect(result).toEqual({
      outcome: 'invalid',
      reason: 'MED is impossible on a CREDIT_CARD sale',
    });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([]);
  });
});

describe('a notice of a status the mirror is past', () => {
  it('joins the history, not entered, when signed', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, input(saleNotice({ status: 'PENDENTE' })));
    expect(result).toEqual({ outcome: 'observed', status: 'PENDENTE' });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([
      {
        resource: 'sale',
        id: 7,
        from: 'PAGO',
        to: 'PENDENTE',
        context: POSTBACK,
        entered: false,
        observedAt: LATER,
      },
    ]);
    expect(writes.items).toEqual([]);
  });

  it('is stale, and recorded nowhere, when unverified or already in the history', () => {
    const unverified = new FakeWrites();
    expect(
      planSale(
        new FakeRows(saleRow({ status: 'PAGO' })),
        unverified,
        input(saleNotice({ status: 'PENDENTE' }), { provenance: 'unverified', context: WEBHOOK }),
      ),
    ).toEqual({ outcome: 'stale', reason: 'PENDENTE cannot follow PAGO on a PIX sale' });
    expect(unverified.history).toEqual([]);

    const seen = new FakeWrites().see('sale', 7, 'PENDENTE');
    expect(
      planSale(
        new FakeRows(saleRow({ status: 'PAGO' })),
        seen,
        input(saleNotice({ status: 'PENDENTE' })),
      ),
    ).toEqual({ outcome: 'stale', reason: 'PENDENTE cannot follow PAGO on a PIX sale' });
    expect(seen.history).toEqual([]);
  });

  it('observes a status after a final one, signed, and says the status is final, unverified', () => {
    const writes = new FakeWrites();
    const result = planSale(
      new FakeRows(saleRow({ status: 'ESTORNADO' })),
      writes,
      input(saleNotice({ status: 'PAGO' })),
    );
    expect(result).toEqual({ outcome: 'observed', status: 'PAGO' });
    expect(writes.history).toMatchObject([{ from: 'ESTORNADO', to: 'PAGO', entered: false }]);

    expect(
      planSale(
        new FakeRows(saleRow({ status: 'ESTORNADO' })),
        new FakeWrites(),
        input(saleNotice({ status: 'PAGO' }), { provenance: 'unverified', context: WEBHOOK }),
      ),
    ).toEqual({ outcome: 'stale', reason: 'ESTORNADO is final' });
  });

  it('never records a withdrawal’s older notice', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'PROCESSING', gatewayUpdatedAt: LATER }));
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'COMPLETED', updatedAt: EARLIER }), {
        context: WEBHOOK,
        provenance: 'unverified',
      }),
    );
    expect(result).toEqual({ outcome: 'stale', reason: "updatedAt older than the mirror's" });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([]);
  });
});

describe('a notice around a cycle (PAGO and MED)', () => {
  it('is only observed when older than the mirror’s status', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusObservedAt: LATER }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'MED' }), { observedAt: EARLIER }),
    );
    expect(result).toEqual({ outcome: 'observed', status: 'MED' });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toMatchObject([{ from: 'PAGO', to: 'MED', entered: false }]);
  });

  it('says why an older unverified one is stale', () => {
    const result = planSale(
      new FakeRows(saleRow({ status: 'PAGO', statusObservedAt: LATER })),
      new FakeWrites(),
      input(saleNotice({ status: 'MED' }), { observedAt: EARLIER, provenance: 'unverified' }),
    );
    expect(result).toEqual({ outcome: 'stale', reason: "observed before the mirror's PAGO" });
  });

  it('is left for a path that reads the gateway first', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'MED' }), { ambiguity: 'defer' }),
    );
    expect(result).toEqual({ outcome: 'deferred' });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([]);
  });

  it('is applied and handed to the reconciler without gateway keys', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'MED' }), { ambiguity: 'reconcile', provenance: 'unverified' }),
    );
    expect(result).toEqual({
      outcome: 'applied',
      from: 'PAGO',
      to: 'MED',
      needsReconcile: true,
      differences: 0,
    });
    expect(rows.written(7)).toMatchObject({
      status: 'MED',
      reconcileRequestedAt: TX_NOW,
      reconcileReason: 'ambiguous move applied unconfirmed',
    });
    expect(writes.history).toMatchObject([{ from: 'PAGO', to: 'MED', entered: true }]);
  });

  it('is counted as a possible replay when signed, without keys, and already in the story', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites().see('sale', 7, 'MED');
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'MED' }), { ambiguity: 'reconcile' }),
    );
    expect(result).toEqual({
      outcome: 'applied',
      from: 'PAGO',
      to: 'MED',
      needsReconcile: true,
      unconfirmedReplay: true,
      differences: 0,
    });
    expect(rows.written(7)).toMatchObject({ status: 'MED', reconcileRequestedAt: TX_NOW });
  });

  it('is no possible replay when signed, without keys, and new to the record’s story', () => {
    const result = planSale(
      new FakeRows(saleRow({ status: 'PAGO' })),
      new FakeWrites(),
      input(saleNotice({ status: 'MED' }), { ambiguity: 'reconcile' }),
    );
    expect(result).toMatchObject({ outcome: 'applied', to: 'MED', needsReconcile: true });
    expect(result).not.toHaveProperty('unconfirmedReplay');
  });

  it('is no possible replay when unverified, even if already in the record’s story', () => {
    const result = planSale(
      new FakeRows(saleRow({ status: 'PAGO' })),
      new FakeWrites().see('sale', 7, 'MED'),
      input(saleNotice({ status: 'MED' }), { ambiguity: 'reconcile', provenance: 'unverified' }),
    );
    expect(result).toMatchObject({ outcome: 'applied', to: 'MED', needsReconcile: true });
    expect(result).not.toHaveProperty('unconfirmedReplay');
  });

  it('is stale when a gateway read follows and the status is already in the record’s story', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites().see('sale', 7, 'MED');
    const result = planSale(rows, writes, input(saleNotice({ status: 'MED' })));
    expect(result).toEqual({ outcome: 'stale', reason: 'MED already observed' });
    expect(rows.updates).toEqual([]);
    expect(writes.history).toEqual([]);
  });

  it('is entered when a gateway read follows and the status is new to the record', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites();
    const result = planSale(rows, writes, input(saleNotice({ status: 'MED' })));
    expect(result).toEqual({
      outcome: 'applied',
      from: 'PAGO',
      to: 'MED',
      needsReconcile: false,
      differences: 0,
    });
    expect(rows.written(7)).toMatchObject({ status: 'MED' });
    expect(rows.written(7)).not.toHaveProperty('reconcileRequestedAt');
  });
});

describe('a webhook the gateway confirmed', () => {
  it('writes nothing when the read wrote no row', () => {
    const rows = new FakeRows<WithdrawalRow>();
    const result = planWithdrawal(
      rows,
      new FakeWrites(),
      input(withdrawalNotice(), { provenance: 'confirmed', context: WEBHOOK }),
    );
    expect(result).toEqual({ outcome: 'stale', reason: 'the gateway read wrote nothing' });
    expect(rows.inserted.size).toBe(0);
    expect(rows.updates).toEqual([]);
  });

  it('corrects a withdrawal’s webhook-only fields when no older than the mirror', () => {
    const rows = new FakeRows(
      withdrawalRow({ status: 'COMPLETED', gatewayUpdatedAt: LATER, externalId: 'bank-old' }),
    );
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'COMPLETED', updatedAt: LATER }), {
        provenance: 'confirmed',
        context: WEBHOOK,
      }),
    );
    expect(result).toEqual({ outcome: 'noop', differences: 1 });
    expect(rows.written(31)).toStrictEqual({
      externalId: 'bank-31',
      processedAt: LATER,
      statusSetBy: 'confirmed',
    });
    expect(writes.discrepancies).toEqual([
      {
        resource: 'withdrawal',
        id: 31,
        differences: [{ field: 'external_id', mirrorValue: 'bank-old', gatewayValue: 'bank-31' }],
        record: { action: 'corrected', source: 'confirmation', inboxEventId: 502, runId: null },
      },
    ]);
    expect(writes.history).toEqual([]);
  });

  it('only fills, and records the difference, when older than the mirror', () => {
    const rows = new FakeRows(
      withdrawalRow({ status: 'COMPLETED', gatewayUpdatedAt: LATER, externalId: 'bank-old' }),
    );
    const writes = new FakeWrites();
    planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'COMPLETED', updatedAt: EARLIER }), {
        provenance: 'confirmed',
        context: WEBHOOK,
      }),
    );
    expect(rows.written(31)).toStrictEqual({ processedAt: LATER, statusSetBy: 'confirmed' });
    expect(writes.discrepancies).toMatchObject([
      { record: { action: 'recorded', source: 'confirmation' } },
    ]);
  });

  it('takes REJECTED for the FAILED the mirror holds', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'FAILED', gatewayUpdatedAt: LATER }));
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'REJECTED', updatedAt: LATER }), {
        provenance: 'confirmed',
        context: WEBHOOK,
      }),
    );
    expect(result).toEqual({ outcome: 'noop', differences: 0 });
    expect(writes.history).toEqual([]);
  });

  it('joins the history, not entered, when the mirror has moved past its status', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'COMPLETED', gatewayUpdatedAt: LATER }));
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'PROCESSING', updatedAt: EARLIER }), {
        provenance: 'confirmed',
        context: WEBHOOK,
      }),
    );
    expect(result).toEqual({ outcome: 'observed', status: 'PROCESSING' });
    expect(writes.history).toEqual([
      {
        resource: 'withdrawal',
        id: 31,
        from: 'COMPLETED',
        to: 'PROCESSING',
        context: WEBHOOK,
        entered: false,
        observedAt: LATER,
      },
    ]);
  });
});

describe('a webhook the gateway contradicted', () => {
  it('writes nothing and names what the gateway has', () => {
    const rows = new FakeRows<SaleRow>();
    const writes = new FakeWrites();
    const result = planSale(
      rows,
      writes,
      input(saleNotice({ status: 'PAGO' }), { provenance: 'contradicted', context: WEBHOOK }),
    );
    expect(result).toEqual({
      outcome: 'unconfirmed',
      reason: 'the gateway has no such sale, not PAGO',
    });
    expect(rows.inserted.size).toBe(0);
    expect(writes.discrepancies).toEqual([]);
  });

  it('records its claims where the mirror holds otherwise', () => {
    const rows = new FakeRows(
      withdrawalRow({ status: 'PROCESSING', externalId: 'bank-31', processedAt: null }),
    );
    const writes = new FakeWrites();
    const result = planWithdrawal(
      rows,
      writes,
      input(withdrawalNotice({ status: 'COMPLETED', amountCents: 99 }), {
        provenance: 'contradicted',
        context: WEBHOOK,
      }),
    );
    expect(result).toEqual({
      outcome: 'unconfirmed',
      reason: 'the gateway has PROCESSING, not COMPLETED',
    });
    expect(rows.updates).toEqual([]);
    expect(writes.discrepancies).toEqual([
      {
        resource: 'withdrawal',
        id: 31,
        differences: [
          { field: 'status', mirrorValue: 'PROCESSING', gatewayValue: 'COMPLETED' },
          { field: 'amount_cents', mirrorValue: '15050', gatewayValue: '99' },
        ],
        record: {
          action: 'recorded',
          source: 'unconfirmed_webhook',
          inboxEventId: 502,
          runId: null,
        },
      },
    ]);
    expect(writes.history).toEqual([]);
  });
});
