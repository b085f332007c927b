import { describe, expect, it } from 'vitest';
import { TX_NOW } from '../../src/db/jsonRows.js';
import type { SaleRow } from '../../src/db/rows.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { InvariantError } from '../../src/lib/invariantError.js';
import type { ReadInput } from '../../src/mirror/inputs.js';
import {
  READ_AGAIN,
  afterRead,
  laterOf,
  readDiscrepancySource,
  withoutStatus,
} from '../../src/mirror/planContext.js';
import { planNotice } from '../../src/mirror/planNotice.js';
import { SALE } from '../../src/mirror/saleResource.js';
import { WITHDRAWAL } from '../../src/mirror/withdrawalResource.js';
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

// The planners' shared pieces and what each kind of record tells them.

function readInput(purpose: ReadInput['purpose']): ReadInput {
  return {
    kind: 'read',
    resource: 'withdrawal',
    record: {
      id: 31,
      status: 'PENDING',
      amountCents: 1,
      netAmountCents: 1,
      feeFixedCents: 0,
      feeVariableCents: 0,
      feeTotalCents: 0,
      pixKey: 'k',
      pixKeyType: 'EMAIL',
      createdAt: CREATED,
      updatedAt: null,
    },
    readAt: LATER,
    context: { source: 'reconcile', inboxEventId: null },
    purpose,
    runId: null,
  };
}

describe('the planners’ shared pieces', () => {
  it('laterOf keeps the mirror’s instant only when strictly later', () => {
    expect(laterOf(null, EARLIER)).toBe(EARLIER);
    expect(laterOf(LATER, EARLIER)).toBe(LATER);
    expect(laterOf(EARLIER, LATER)).toBe(LATER);
    const same = new Date(LATER.getTime());
    expect(laterOf(same, LATER)).toBe(LATER);
  });

  it('withoutStatus drops only the status difference', () => {
    const amount = { field: 'amount_cents', mirrorValue: '1', gatewayValue: '2' };
    expect(
      withoutStatus([{ field: 'status', mirrorValue: 'PENDENTE', gatewayValue: 'PAGO' }, amount]),
    ).toEqual([amount]);
  });

  it('a read’s discrepancies belong to the pass or to the confirmation', () => {
    expect(readDiscrepancySource(readInput('reconcile'))).toBe('reconcile');
    expect(readDiscrepancySource(readInput('confirmation'))).toBe('confirmation');
    expect(readDiscrepancySource(readInput('api'))).toBe('confirmation');
  });

  it('afterRead clears the request for a read and marks only a pass as one', () => {
    const ctx = planContext(new FakeWrites());
    const watched = { resource: 'withdrawal', status: 'COMPLETED', createdAt: CREATED } as const;
    expect(afterRead(watched, readInput('reconcile'), ctx)).toStrictEqual({
      nextReconcileAt: null,
      reconcileRequestedAt: null,
      reconcileReason: null,
      gatewayReadAt: LATER,
      lastReconciledAt: TX_NOW,
    });
    expect(afterRead(watched, readInput('api'), ctx)).toStrictEqual({
      nextReconcileAt: null,
      reconcileRequestedAt: null,
      reconcileReason: null,
      gatewayReadAt: LATER,
    });
    expect(READ_AGAIN).toStrictEqual({
      reconcileRequestedAt: TX_NOW,
      reconcileReason: 'a gateway read older than the mirror status',
    });
    expect(ctx.watch.policy).toBe(DEFAULT_WATCH_POLICY);
  });
});

describe('planNotice’s guards', () => {
  it('refuses a machine that would insert a record the mirror has', () => {
    const broken = { ...SALE, decideNotice: () => ({ kind: 'insert' }) as const };
    expect(() =>
      planNotice(
        broken,
        new FakeRows(saleRow()).asRows(),
        {
          kind: 'notice',
          notice: saleNotice(),
          provenance: 'signed',
          observedAt: LATER,
          context: { source: 'postback', inboxEventId: 1 },
          ambiguity: 'read',
        },
        planContext(new FakeWrites()),
      ),
    ).toThrow(new InvariantError('the sale machine returned insert for an existing row'));
  });

  it('says a confirmed webhook whose status is already observed is stale', () => {
    const writes = new FakeWrites().see('withdrawal', 31, 'PROCESSING');
    const result = planNotice(
      WITHDRAWAL,
      new FakeRows(withdrawalRow({ status: 'COMPLETED', gatewayUpdatedAt: LATER })).asRows(),
      {
        kind: 'notice',
        notice: withdrawalNotice({ status: 'PROCESSING', updatedAt: EARLIER }),
        provenance: 'confirmed',
        observedAt: LATER,
        context: { source: 'webhook', inboxEventId: 2 },
        ambiguity: 'read',
      },
      planContext(writes),
    );
    expect(result).toEqual({ outcome: 'stale', reason: 'the mirror moved past PROCESSING' });
    expect(writes.history).toEqual([]);
  });

  it('records a contradicted sale webhook’s status and amount claims', () => {
    const writes = new FakeWrites();
    const result = planNotice(
      SALE,
      new FakeRows<SaleRow>(saleRow({ status: 'PENDENTE' })).asRows(),
      {
        kind: 'notice',
        notice: saleNotice({ status: 'PAGO', amountCents: 99 }),
        provenance: 'contradicted',
        observedAt: LATER,
        context: { source: 'webhook', inboxEventId: 3 },
        ambiguity: 'read',
      },
      planContext(writes),
    );
    expect(result).toEqual({
      outcome: 'unconfirmed',
      reason: 'the gateway has PENDENTE, not PAGO',
    });
    expect(writes.discrepancies).toMatchObject([
      {
        resource: 'sale',
        id: 7,
        differences: [
          { field: 'status', mirrorValue: 'PENDENTE', gatewayValue: 'PAGO' },
          { field: 'amount_cents', mirrorValue: '15050', gatewayValue: '99' },
        ],
        record: { action: 'recorded', source: 'unconfirmed_webhook', inboxEventId: 3 },
      },
    ]);
  });
});

describe('a sale, for the planner', () => {
  it('has one name per status', () => {
    expect(SALE.sameStatus('PAGO', 'PAGO')).toBe(true);
    expect(SALE.sameStatus('PAGO', 'MED')).toBe(false);
  });

  it('stores absent shipping as null and keeps a given one', () => {
    expect(SALE.noticeValues(saleNotice({ shipping: undefined })).shipping).toBeNull();
    expect(SALE.noticeValues(saleNotice({ shipping: { city: 'Recife' } })).shipping).toEqual({
      city: 'Recife',
    });
  });

  it('has no items from a notice without an item list', () => {
    expect(SALE.noticeItems(saleNotice({ items: undefined }))).toEqual([]);
  });

  it('is watched as a sale, from a notice or from a read', () => {
    expect(SALE.watchedNotice(saleNotice({ createdAt: null }), NOW)).toEqual({
      resource: 'sale',
      status: 'PAGO',
      paymentMethod: 'PIX',
      createdAt: NOW,
      completedAt: null,
      pixExpiresAt: null,
      boletoCode: null,
    });
    expect(
      SALE.watchedRead(
        {
          id: 7,
          status: 'PAGO',
          paymentMethod: 'BOLETO',
          createdAt: CREATED,
          completedAt: LATER,
        } as Parameters<typeof SALE.watchedRead>[0],
        undefined,
      ),
    ).toEqual({
      resource: 'sale',
      status: 'PAGO',
      paymentMethod: 'BOLETO',
      createdAt: CREATED,
      completedAt: LATER,
      pixExpiresAt: null,
      boletoCode: null,
    });
  });
});

describe('a withdrawal, for the planner', () => {
  it('takes REJECTED and FAILED for one status', () => {
    expect(WITHDRAWAL.sameStatus('REJECTED', 'FAILED')).toBe(true);
    expect(WITHDRAWAL.sameStatus('COMPLETED', 'FAILED')).toBe(false);
  });

  it('is watched as a withdrawal from a notice without creation time from now', () => {
    expect(WITHDRAWAL.watchedNotice(withdrawalNotice({ createdAt: null }), NOW)).toEqual({
      resource: 'withdrawal',
      status: 'COMPLETED',
      createdAt: NOW,
    });
  });
});
