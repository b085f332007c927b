import { describe, expect, it } from 'vitest';
import { TX_NOW } from '../../src/db/jsonRows.js';
import type { SaleRow, WithdrawalRow } from '../../src/db/rows.js';
import type { GatewayTransaction, GatewayWithdrawal } from '../../src/gateway/types.js';
import type { ChangeContext, NoticeInput, ReadInput } from '../../src/mirror/inputs.js';
import { planNotice } from '../../src/mirror/planNotice.js';
import { planRead } from '../../src/mirror/planRead.js';
import { SALE } from '../../src/mirror/saleResource.js';
import { WITHDRAWAL } from '../../src/mirror/withdrawalResource.js';
import type { Notice } from '../../src/notifications/notification.js';
import {
  EARLIER,
  FakeRows,
  FakeWrites,
  gatewayTransaction,
  gatewayWithdrawal,
  LATER,
  NOW,
  planContext,
  saleNotice,
  saleRow,
  withdrawalNotice,
  withdrawalRow,
} from '../support/planHarness.js';

// The money and existence rules of docs/reconciliation.md: a read never undoes a final status an
// authentic observation set, what set a status, a webhook's fee, the reserve, a denial, and a
// withdrawal's fee arithmetic.

const RECONCILE: ChangeContext = { source: 'reconcile', inboxEventId: null };
const WEBHOOK: ChangeContext = { source: 'webhook', inboxEventId: 502 };

/** A bare sale read: no reserve, customer, items or extras. */
function transaction(overrides: Partial<GatewayTransaction> = {}): GatewayTransaction {
  return gatewayTransaction({
    reserveAmountCents: null,
    customerName: null,
    customerEmail: null,
    customerDocument: null,
    customerPhone: null,
    items: [],
    pixCode: null,
    externalTransactionId: null,
    installments: null,
    shipping: null,
    ...overrides,
  });
}

function withdrawal(overrides: Partial<GatewayWithdrawal> = {}): GatewayWithdrawal {
  return gatewayWithdrawal({ status: 'COMPLETED', ...overrides });
}

function readOf<R>(record: R, purpose: ReadInput['purpose'] = 'reconcile') {
  return {
    kind: 'read' as const,
    resource: 'sale' as const,
    record,
    readAt: LATER,
    context: purpose === 'reconcile' ? RECONCILE : WEBHOOK,
    purpose,
    runId: purpose === 'reconcile' ? 77 : null,
  };
}

function readSale(rows: FakeRows<SaleRow>, writes: FakeWrites, read: ReturnType<typeof readOf>) {
  return planRead(SALE, rows.asRows(), read as ReadInput & { record: GatewayTransaction }, {
    ...planContext(writes),
  });
}

function readWithdrawal(
  rows: FakeRows<WithdrawalRow>,
  writes: FakeWrites,
  read: ReturnType<typeof readOf>,
) {
  return planRead(
    WITHDRAWAL,
    rows.asRows(),
    { ...(read as ReadInput & { record: GatewayWithdrawal }), resource: 'withdrawal' },
    planContext(writes),
  );
}

function noticeOf<N extends Notice>(
  notice: N,
  provenance: NoticeInput<N>['provenance'],
): NoticeInput<N> {
  return {
    kind: 'notice',
    notice,
    provenance,
    observedAt: LATER,
    context: provenance === 'signed' ? { source: 'postback', inboxEventId: 501 } : WEBHOOK,
    ambiguity: 'read',
  };
}

/** A sale refunded by a signed postback. */
const SIGNED_REFUND = { status: 'ESTORNADO', statusSetBy: 'signed' } as const;

describe('a read against a final status an authentic observation set', () => {
  it('moves nothing, records the status and asks for another read', () => {
    const rows = new FakeRows(saleRow(SIGNED_REFUND));
    const writes = new FakeWrites();
    const result = readSale(rows, writes, readOf(transaction({ status: 'PAGO' })));
    expect(result).toEqual({
      outcome: 'held',
      reason: 'ESTORNADO is final and was observed authentically; the gateway read PAGO',
      flagged: false,
    });
    expect(rows.updates).toEqual([
      {
        id: 7,
        fields: {
          disagreeingReads: 1,
          reconcileRequestedAt: TX_NOW,
          reconcileReason: 'a gateway read said PAGO, not the final ESTORNADO',
          lastReconciledAt: TX_NOW,
        },
      },
    ]);
    expect(writes.discrepancies).toEqual([
      {
        resource: 'sale',
        id: 7,
        differences: [{ field: 'status', mirrorValue: 'ESTORNADO', gatewayValue: 'PAGO' }],
        record: { action: 'recorded', source: 'reconcile', inboxEventId: null, runId: 77 },
      },
    ]);
    expect(writes.history).toEqual([]);
    expect(writes.items).toEqual([]);
  });

  it('holds a status a confirmed webhook set, and counts on from the run so far', () => {
    const rows = new FakeRows(
      withdrawalRow({ status: 'COMPLETED', statusSetBy: 'confirmed', disagreeingReads: 1 }),
    );
    const writes = new FakeWrites();
    const result = readWithdrawal(
      rows,
      writes,
      readOf(withdrawal({ status: 'FAILED' }), 'confirmation'),
    );
    expect(result).toMatchObject({ outcome: 'held', flagged: false });
    expect(rows.written(31)).toStrictEqual({
      disagreeingReads: 2,
      reconcileRequestedAt: TX_NOW,
      reconcileReason: 'a gateway read said FAILED, not the final COMPLETED',
    });
    expect(writes.discrepancies).toEqual([
      {
        resource: 'withdrawal',
        id: 31,
        differences: [{ field: 'status', mirrorValue: 'COMPLETED', gatewayValue: 'FAILED' }],
        record: { action: 'recorded', source: 'confirmation', inboxEventId: 502, runId: null },
      },
    ]);
  });

  it('flags the record at the threshold instead of asking for another read', () => {
    const rows = new FakeRows(saleRow({ ...SIGNED_REFUND, disagreeingReads: 2 }));
    const result = readSale(rows, new FakeWrites(), readOf(transaction(), 'api'));
    expect(result).toMatchObject({ outcome: 'held', flagged: true });
    expect(rows.written(7)).toStrictEqual({
      disagreeingReads: 3,
      flaggedAt: TX_NOW,
      flagReason: '3 gateway reads in a row said PAGO, not ESTORNADO',
      reconcileRequestedAt: null,
      reconcileReason: null,
    });
  });

  it('keeps when it was first flagged and says how many reads disagreed since', () => {
    const rows = new FakeRows(saleRow({ ...SIGNED_REFUND, disagreeingReads: 3, flaggedAt: NOW }));
    const result = readSale(rows, new FakeWrites(), readOf(transaction()));
    expect(result).toMatchObject({ outcome: 'held', flagged: true });
    expect(rows.written(7)).toStrictEqual({
      disagreeingReads: 4,
      flagReason: '4 gateway reads in a row said PAGO, not ESTORNADO',
      reconcileRequestedAt: null,
      reconcileReason: null,
      lastReconciledAt: TX_NOW,
    });
  });

  it('clears a denial: the read shows the record exists', () => {
    const rows = new FakeRows(saleRow({ ...SIGNED_REFUND, denialReadAt: EARLIER }));
    readSale(rows, new FakeWrites(), readOf(transaction()));
    expect(rows.written(7)).toMatchObject({ deniedAt: null, denialReadAt: null });
  });

  it('still corrects a final status a read set', () => {
    const rows = new FakeRows(saleRow({ status: 'ESTORNADO', statusSetBy: 'read' }));
    const result = readSale(rows, new FakeWrites(), readOf(transaction()));
    expect(result).toMatchObject({ outcome: 'applied', from: 'ESTORNADO', to: 'PAGO' });
    expect(rows.written(7)).toMatchObject({ status: 'PAGO', statusSetBy: 'read' });
  });
});

describe('a read that is written', () => {
  it('says a read set the status it moves, an api answer when it was ours', () => {
    const reconcile = new FakeRows(saleRow());
    readSale(reconcile, new FakeWrites(), readOf(transaction()));
    expect(reconcile.written(7).statusSetBy).toBe('read');

    const confirmation = new FakeRows(saleRow());
    readSale(confirmation, new FakeWrites(), readOf(transaction(), 'confirmation'));
    expect(confirmation.written(7).statusSetBy).toBe('read');

    const api = new FakeRows(saleRow());
    readSale(api, new FakeWrites(), readOf(transaction(), 'api'));
    expect(api.written(7).statusSetBy).toBe('api');

    const inserted = new FakeRows<SaleRow>();
    readSale(inserted, new FakeWrites(), readOf(transaction(), 'api'));
    expect(inserted.inserted.get(7)?.statusSetBy).toBe('api');
  });

  it('leaves what set the status alone when the status does not move', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: 'signed' }));
    readSale(rows, new FakeWrites(), readOf(transaction()));
    expect(rows.written(7)).not.toHaveProperty('statusSetBy');
  });

  it('ends a run of disagreeing reads, and its flag, when it agrees', () => {
    const counted = new FakeRows(saleRow({ ...SIGNED_REFUND, disagreeingReads: 2 }));
    readSale(counted, new FakeWrites(), readOf(transaction({ status: 'ESTORNADO' })));
    expect(counted.written(7)).toMatchObject({
      disagreeingReads: 0,
      flaggedAt: null,
      flagReason: null,
    });

    const flagged = new FakeRows(saleRow({ ...SIGNED_REFUND, flaggedAt: NOW }));
    readSale(flagged, new FakeWrites(), readOf(transaction({ status: 'ESTORNADO' })));
    expect(flagged.written(7)).toMatchObject({
      disagreeingReads: 0,
      flaggedAt: null,
      flagReason: null,
    });

    const calm = new FakeRows(saleRow(SIGNED_REFUND));
    readSale(calm, new FakeWrites(), readOf(transaction({ status: 'ESTORNADO' })));
    expect(calm.written(7)).not.toHaveProperty('disagreeingReads');
    expect(calm.written(7)).not.toHaveProperty('flaggedAt');
    expect(calm.written(7)).not.toHaveProperty('flagReason');
  });

  it('clears a denial, from its first read or its second', () => {
    for (const denial of [{ deniedAt: NOW }, { denialReadAt: EARLIER }]) {
      const rows = new FakeRows(saleRow({ status: 'PAGO', ...denial }));
      readSale(rows, new FakeWrites(), readOf(transaction()));
      expect(rows.written(7)).toMatchObject({ deniedAt: null, denialReadAt: null });
    }
    const never = new FakeRows(saleRow({ status: 'PAGO' }));
    readSale(never, new FakeWrites(), readOf(transaction()));
    expect(never.written(7)).not.toHaveProperty('deniedAt');
    expect(never.written(7)).not.toHaveProperty('denialReadAt');
  });
});

describe('a sale’s reserve', () => {
  it('is cleared by a read without one outside MED and CHARGEBACK, and recorded', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', reserveAmountCents: 300 }));
    const writes = new FakeWrites();
    const result = readSale(rows, writes, readOf(transaction()));
    expect(result).toEqual({ outcome: 'noop', differences: 1 });
    expect(rows.written(7).reserveAmountCents).toBeNull();
    expect(writes.discrepancies).toEqual([
      {
        resource: 'sale',
        id: 7,
        differences: [{ field: 'reserve_amount_cents', mirrorValue: '300', gatewayValue: null }],
        record: { action: 'corrected', source: 'reconcile', inboxEventId: null, runId: 77 },
      },
    ]);
  });

  it('is kept in MED and CHARGEBACK when the read leaves it out', () => {
    const med = new FakeRows(saleRow({ status: 'MED', reserveAmountCents: 300 }));
    readSale(med, new FakeWrites(), readOf(transaction({ status: 'MED' })));
    expect(med.written(7)).not.toHaveProperty('reserveAmountCents');

    const chargeback = new FakeRows(
      saleRow({ status: 'CHARGEBACK', paymentMethod: 'CREDIT_CARD', reserveAmountCents: 300 }),
    );
    readSale(
      chargeback,
      new FakeWrites(),
      readOf(transaction({ status: 'CHARGEBACK', paymentMethod: 'CREDIT_CARD' })),
    );
    expect(chargeback.written(7)).not.toHaveProperty('reserveAmountCents');
  });

  it('is no difference when the mirror held none either', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO' }));
    const writes = new FakeWrites();
    readSale(rows, writes, readOf(transaction()));
    expect(rows.written(7)).not.toHaveProperty('reserveAmountCents');
    expect(writes.discrepancies).toEqual([]);
  });

  it('is no difference when the mirror’s row does not carry it', () => {
    const { reserveAmountCents: _absent, ...row } = saleRow({ status: 'PAGO' });
    const rows = new FakeRows(row as SaleRow);
    const writes = new FakeWrites();
    readSale(rows, writes, readOf(transaction()));
    expect(rows.written(7)).not.toHaveProperty('reserveAmountCents');
    expect(writes.discrepancies).toEqual([]);
  });

  it('is named by the read for clearing only when absent outside MED and CHARGEBACK', () => {
    expect(SALE.readClears(transaction())).toEqual(['reserveAmountCents']);
    expect(SALE.readClears(transaction({ reserveAmountCents: 0 }))).toEqual([]);
    expect(SALE.readClears(transaction({ status: 'MED' }))).toEqual([]);
    expect(SALE.readClears(transaction({ status: 'CHARGEBACK' }))).toEqual([]);
    expect(WITHDRAWAL.readClears(withdrawal())).toEqual([]);
  });
});

describe('a withdrawal read whose fees do not add up', () => {
  it('is stored as read and each contradiction recorded', () => {
    const rows = new FakeRows<WithdrawalRow>();
    const writes = new FakeWrites();
    readWithdrawal(
      rows,
      writes,
      readOf(withdrawal({ feeFixedCents: 100, netAmountCents: 14_600 }), 'confirmation'),
    );
    expect(rows.inserted.get(31)).toMatchObject({ feeTotalCents: 445, netAmountCents: 14_600 });
    expect(writes.discrepancies).toEqual([
      {
        resource: 'withdrawal',
        id: 31,
        differences: [
          { field: 'fee_total_cents', mirrorValue: '345', gatewayValue: '445' },
          { field: 'net_amount_cents', mirrorValue: '14605', gatewayValue: '14600' },
        ],
        record: { action: 'recorded', source: 'fee_arithmetic', inboxEventId: 502, runId: null },
      },
    ]);
  });

  it('is checked when the money differs from what the mirror stored', () => {
    const rows = new FakeRows(withdrawalRow({ status: 'COMPLETED', gatewayUpdatedAt: LATER }));
    const writes = new FakeWrites();
    readWithdrawal(rows, writes, readOf(withdrawal({ feeFixedCents: 100 })));
    expect(writes.discrepancies).toMatchObject([
      {
        differences: [{ field: 'fee_total_cents', mirrorValue: '345', gatewayValue: '445' }],
        record: { action: 'recorded', source: 'fee_arithmetic', runId: 77 },
      },
    ]);
  });

  it('is not recorded again when the mirror already stores the same money', () => {
    const rows = new FakeRows(
      withdrawalRow({
        status: 'COMPLETED',
        gatewayUpdatedAt: LATER,
        netAmountCents: 14_605,
        feeFixedCents: 100,
        feeVariableCents: 245,
        feeTotalCents: 445,
      }),
    );
    const writes = new FakeWrites();
    readWithdrawal(rows, writes, readOf(withdrawal({ feeFixedCents: 100 })));
    expect(writes.discrepancies).toEqual([]);
  });

  it('is none when the fees add up', () => {
    expect(WITHDRAWAL.readInconsistencies?.(withdrawal(), undefined)).toEqual([]);
  });
});

describe('what set the status, from a notice', () => {
  it('is the notice’s provenance when it inserts or moves the record', () => {
    const inserted = new FakeRows<SaleRow>();
    planNotice(
      SALE,
      inserted.asRows(),
      noticeOf(saleNotice(), 'unverified'),
      planContext(new FakeWrites()),
    );
    expect(inserted.inserted.get(7)?.statusSetBy).toBe('unverified');

    const moved = new FakeRows(saleRow({ statusSetBy: 'read' }));
    planNotice(
      SALE,
      moved.asRows(),
      noticeOf(saleNotice(), 'unverified'),
      planContext(new FakeWrites()),
    );
    expect(moved.written(7).statusSetBy).toBe('unverified');
  });

  it('becomes authentic when a signed notice repeats a status something else set', () => {
    for (const setBy of [null, 'read', 'unverified', 'api']) {
      const rows = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: setBy }));
      planNotice(
        SALE,
        rows.asRows(),
        noticeOf(saleNotice(), 'signed'),
        planContext(new FakeWrites()),
      );
      expect(rows.written(7).statusSetBy).toBe('signed');
    }
  });

  it('stays what it was when already authentic, or when the notice is unverified', () => {
    for (const setBy of ['signed', 'confirmed']) {
      const rows = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: setBy }));
      planNotice(
        SALE,
        rows.asRows(),
        noticeOf(saleNotice(), 'signed'),
        planContext(new FakeWrites()),
      );
      expect(rows.written(7)).not.toHaveProperty('statusSetBy');
    }
    const unverified = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: 'read' }));
    planNotice(
      SALE,
      unverified.asRows(),
      noticeOf(saleNotice(), 'unverified'),
      planContext(new FakeWrites()),
    );
    expect(unverified.written(7)).not.toHaveProperty('statusSetBy');
  });

  it('is confirmed by a confirmed webhook of the status a read set', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: 'read' }));
    planNotice(
      SALE,
      rows.asRows(),
      noticeOf(saleNotice(), 'confirmed'),
      planContext(new FakeWrites()),
    );
    expect(rows.written(7)).toStrictEqual({ statusSetBy: 'confirmed' });

    const signed = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: 'signed' }));
    planNotice(
      SALE,
      signed.asRows(),
      noticeOf(saleNotice(), 'confirmed'),
      planContext(new FakeWrites()),
    );
    expect(signed.written(7)).toStrictEqual({});
  });
});

describe('a sale webhook’s money', () => {
  it('is compared with the read’s, never written, when the gateway confirms it', () => {
    const rows = new FakeRows(
      saleRow({ status: 'PAGO', systemFeeCents: 1_050, feeCents: 1_050, statusSetBy: 'read' }),
    );
    const writes = new FakeWrites();
    const result = planNotice(
      SALE,
      rows.asRows(),
      noticeOf(saleNotice({ feeCents: 999, amountCents: 15_000 }), 'confirmed'),
      planContext(writes),
    );
    expect(result).toEqual({ outcome: 'noop', differences: 0 });
    expect(rows.written(7)).toStrictEqual({ statusSetBy: 'confirmed' });
    expect(writes.discrepancies).toEqual([
      {
        resource: 'sale',
        id: 7,
        differences: [
          { field: 'amount_cents', mirrorValue: '15050', gatewayValue: '15000' },
          { field: 'system_fee_cents', mirrorValue: '1050', gatewayValue: '999' },
        ],
        record: {
          action: 'recorded',
          source: 'unconfirmed_webhook',
          inboxEventId: 502,
          runId: null,
        },
      },
    ]);
  });

  it('records a contradicted webhook’s fee claim', () => {
    const rows = new FakeRows(saleRow({ status: 'PAGO', systemFeeCents: 1_050 }));
    const writes = new FakeWrites();
    planNotice(
      SALE,
      rows.asRows(),
      noticeOf(saleNotice({ feeCents: 999 }), 'contradicted'),
      planContext(writes),
    );
    expect(rows.updates).toEqual([]);
    expect(writes.discrepancies).toMatchObject([
      {
        differences: [{ field: 'system_fee_cents', mirrorValue: '1050', gatewayValue: '999' }],
        record: { action: 'recorded', source: 'unconfirmed_webhook' },
      },
    ]);
  });

  it('is claimed as amount and fee, and carries nothing only a webhook has', () => {
    const notice = saleNotice({ feeCents: 999 });
    expect(SALE.webhookClaims(notice)).toStrictEqual({
      amountCents: 15_050,
      systemFeeCents: 999,
    });
    expect(SALE.webhookOnly(notice)).toStrictEqual({});
    expect(SALE.webhookCorrects(saleRow(), notice)).toBe(false);
    expect(SALE.claims(notice)).toStrictEqual({
      status: 'PAGO',
      amountCents: 15_050,
      systemFeeCents: 999,
    });
    expect(WITHDRAWAL.webhookClaims(withdrawalNotice({ amountCents: 99 }))).toStrictEqual({
      amountCents: 99,
    });
  });
});

describe('a denied record and a notice', () => {
  it('is restored by a signed or a confirmed notice', () => {
    for (const provenance of ['signed', 'confirmed'] as const) {
      const rows = new FakeRows(saleRow({ status: 'PAGO', deniedAt: NOW, denialReadAt: EARLIER }));
      planNotice(
        SALE,
        rows.asRows(),
        noticeOf(saleNotice(), provenance),
        planContext(new FakeWrites()),
      );
      expect(rows.updates[0]).toEqual({ id: 7, fields: { deniedAt: null, denialReadAt: null } });
    }
    const firstRead = new FakeRows(saleRow({ status: 'PAGO', denialReadAt: EARLIER }));
    planNotice(
      SALE,
      firstRead.asRows(),
      noticeOf(saleNotice(), 'signed'),
      planContext(new FakeWrites()),
    );
    expect(firstRead.written(7)).toMatchObject({ deniedAt: null, denialReadAt: null });
  });

  it('stays denied after an unverified or contradicted one, and a record never denied is not touched', () => {
    for (const provenance of ['unverified', 'contradicted'] as const) {
      const rows = new FakeRows(saleRow({ status: 'PAGO', deniedAt: NOW }));
      planNotice(
        SALE,
        rows.asRows(),
        noticeOf(saleNotice(), provenance),
        planContext(new FakeWrites()),
      );
      expect(rows.written(7)).not.toHaveProperty('deniedAt');
    }
    const never = new FakeRows(saleRow({ status: 'PAGO', statusSetBy: 'signed' }));
    planNotice(
      SALE,
      never.asRows(),
      noticeOf(saleNotice(), 'signed'),
      planContext(new FakeWrites()),
    );
    expect(never.written(7)).not.toHaveProperty('deniedAt');
  });
});

describe('a sale’s watch window', () => {
  it('takes the PIX expiry a notice gives, and stores it only when given', () => {
    const expires = new Date('2026-03-10T13:00:00.000Z');
    const notice = saleNotice({ status: 'PENDENTE', pixExpiresAt: expires, boletoCode: 'b' });
    expect(SALE.noticeValues(notice).pixExpiresAt).toBe(expires);
    expect(SALE.noticeValues(saleNotice())).not.toHaveProperty('pixExpiresAt');
    expect(SALE.noticeValues(saleNotice({ pixExpiresAt: null }))).toHaveProperty(
      'pixExpiresAt',
      null,
    );
    expect(SALE.watchedNotice(notice, NOW)).toMatchObject({
      pixExpiresAt: expires,
      boletoCode: 'b',
    });
  });

  it('keeps the mirror’s expiry and boleto code for a read that lacks them', () => {
    const expires = new Date('2026-03-10T13:00:00.000Z');
    const current = saleRow({ pixExpiresAt: expires, boletoCode: 'stored' });
    expect(SALE.watchedRead(transaction(), current)).toMatchObject({
      pixExpiresAt: expires,
      boletoCode: 'stored',
    });
    expect(SALE.watchedRead(transaction({ boletoCode: 'read' }), current)).toMatchObject({
      boletoCode: 'read',
    });
  });
});
