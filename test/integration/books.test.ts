import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBooks, tiesOut } from '../../src/books/checkBooks.js';
import {
  closeThrough,
  journalDaily,
  journalFor,
  reopenFrom,
  type JournalDayRow,
} from '../../src/books/sql.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { SALE_STATUSES, type SaleStatus } from '../../src/domain/saleMachine.js';
import type { GatewayTransaction, GatewayWithdrawal } from '../../src/gateway/types.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { recordBookStates } from '../../src/mirror/sql/bookStates.js';
import {
  noticeInput,
  saleNotice as parsedSaleNotice,
  saleRead,
  saleRecord,
  withdrawalNotice as parsedWithdrawalNotice,
} from '../support/mirrorInputs.js';
import { useTestDatabase } from '../support/services.js';

const test = useTestDatabase();

/** Hours after a São Paulo midnight (03:00 UTC), so day n is hours [24n, 24n + 24). */
const BASE = Date.parse('2026-11-02T03:00:00Z');
const at = (hour: number) => new Date(BASE + hour * 3_600_000);
const dayOf = (day: number) => new Date(BASE + day * 86_400_000).toISOString().slice(0, 10);

const METHODS = { 1: 'PIX', 2: 'CREDIT_CARD', 3: 'PIX' } as const;
type SaleId = keyof typeof METHODS;
const WITHDRAWAL_NOTIFIED = ['PENDING', 'PROCESSING', 'COMPLETED', 'REJECTED', 'CANCELLED'];
const WITHDRAWAL_READ = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'];

function saleNotice(id: SaleId, status: string, hour: number): MirrorInput {
  const notice = parsedSaleNotice('postback', {
    id,
    status: status as SaleStatus,
    paymentMethod: METHODS[id],
    amount: '10000',
  });
  return noticeInput(notice, 'signed', at(hour), 'reconcile');
}

function readOf(
  id: SaleId,
  status: SaleStatus,
  hour: number,
  net: number | null,
  completedHour: number | null,
): MirrorInput {
  const cents = (value: number) => value as GatewayTransaction['amountCents'];
  const record = saleRecord(id, status, {
    paymentMethod: METHODS[id],
    amountCents: cents(10_000),
    netAmountCents: net === null ? null : cents(net),
    systemFeeCents: net === null ? null : cents(10_000 - net),
    createdAt: at(0),
    completedAt: completedHour === null ? null : at(completedHour),
  });
  return saleRead(record, at(hour));
}

function withdrawalNotice(id: number, status: string, hour: number): MirrorInput {
  const notice = parsedWithdrawalNotice({ id, status, updatedAt: at(hour).toISOString() });
  return noticeInput(notice, 'unverified', at(hour), 'reconcile');
}

function withdrawalRead(id: number, status: string, hour: number): MirrorInput {
  const cents = (value: number) => value as GatewayWithdrawal['amountCents'];
  const record: GatewayWithdrawal = {
    id,
    status: status as GatewayWithdrawal['status'],
    amountCents: cents(15_050),
    netAmountCents: cents(14_900),
    feeFixedCents: cents(150),
    feeVariableCents: cents(0),
    feeTotalCents: cents(150),
    pixKey: '12345678909',
    pixKeyType: 'CPF',
    createdAt: at(0),
    updatedAt: at(hour),
  };
  return {
    kind: 'read',
    resource: 'withdrawal',
    record,
    readAt: at(hour),
    context: { source: 'reconcile', inboxEventId: null },
    purpose: 'reconcile',
    runId: null,
  };
}

const saleId = fc.constantFrom<SaleId>(1, 2, 3);
const hour = fc.nat({ max: 24 * 8 - 1 });
const event = fc.oneof(
  fc.record({
    kind: fc.constant('sale notice' as const),
    id: saleId,
    status: fc.constantFrom(...SALE_STATUSES),
    hour,
    times: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    kind: fc.constant('sale read' as const),
    id: saleId,
    status: fc.constantFrom(...SALE_STATUSES),
    hour,
    net: fc.option(fc.integer({ min: 9_000, max: 9_900 })),
    completedHour: fc.option(hour),
  }),
  fc.record({
    kind: fc.constant('withdrawal notice' as const),
    id: fc.constantFrom(1, 2),
    status: fc.constantFrom(...WITHDRAWAL_NOTIFIED),
    hour,
  }),
  fc.record({
    kind: fc.constant('withdrawal read' as const),
    id: fc.constantFrom(1, 2),
    status: fc.constantFrom(...WITHDRAWAL_READ),
    hour,
  }),
  fc.record({ kind: fc.constant('close' as const), day: fc.nat({ max: 7 }) }),
);

type Event = typeof event extends fc.Arbitrary<infer T> ? T : never;

function inputsOf(e: Exclude<Event, { kind: 'close' }>): MirrorInput[] {
  switch (e.kind) {
    case 'sale notice':
      return Array.from({ length: e.times }, () => saleNotice(e.id, e.status, e.hour));
    case 'sale read':
      return [readOf(e.id, e.status, e.hour, e.net, e.completedHour)];
    case 'withdrawal notice':
      return [withdrawalNotice(e.id, e.status, e.hour)];
    case 'withdrawal read':
      return [withdrawalRead(e.id, e.status, e.hour)];
  }
}

async function check() {
  const { sql } = test().database;
  return checkBooks(sql, await recordBookStates(sql));
}

async function reset() {
  await test().database.sql`truncate sales, sale_items, withdrawals, status_history,
    reconciliation_discrepancies, ledger_entries, ledger_closes, ledger_closed_days
    restart identity cascade`;
}

describe('the books, written by the mirror writer', () => {
  it('tie out after any history, and a closed day never changes', async () => {
    const watch = { now: at(24 * 9), policy: DEFAULT_WATCH_POLICY };
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 16 }), async (events) => {
        await reset();
        const { sql } = test().database;
        let closed: string | null = null;
        let closedRows: JournalDayRow[] = [];
        for (const e of events) {
          if (e.kind === 'close') {
            closed = await closeThrough(sql, dayOf(e.day));
            closedRows = await journalDaily(sql, null, closed);
          } else {
            await writeMirror(sql, inputsOf(e), watch);
          }
          const result = await check();
          expect(result.untied).toEqual([]);
          expect(result.changedClosedDays).toEqual([]);
          if (closed !== null) expect(await journalDaily(sql, null, closed)).toEqual(closedRows);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('book an entry that falls in a closed day at the start of the first open day', async () => {
    await reset();
    const { sql } = test().database;
    const watch = { now: at(24 * 9), policy: DEFAULT_WATCH_POLICY };
    await writeMirror(sql, [saleNotice(1, 'PAGO', 5)], watch);
    await closeThrough(sql, dayOf(2));
    await writeMirror(sql, [readOf(1, 'PAGO', 40, 9_500, 5)], watch);
    await writeMirror(sql, [saleNotice(1, 'ESTORNADO', 60)], watch);
    const entries = await journalFor(sql, 'sale', 1);
    expect(
      entries.map((entry) => [
        entry.kind,
        entry.amount_cents,
        entry.day,
        entry.original_kind,
        entry.original_effective_at?.toISOString() ?? null,
        entry.corrects_entry_id,
      ]),
    ).toEqual([
      ['payment', 10_000, dayOf(0), null, null, null],
      ['adjustment', -500, dayOf(3), 'fee_adjustment', at(5).toISOString(), 1],
      ['adjustment', -9_500, dayOf(3), 'refund', at(60).toISOString(), 2],
    ]);
    expect(entries[1]?.effective_at.toISOString()).toBe(at(72).toISOString());
    expect(tiesOut(await check())).toBe(true);

    await reopenFrom(sql, dayOf(1), 'statement from the gateway arrived late');
    await writeMirror(sql, [saleNotice(2, 'PAGO', 30)], watch);
    expect((await journalFor(sql, 'sale', 2)).map((entry) => [entry.kind, entry.day])).toEqual([
      ['payment', dayOf(1)],
    ]);
    expect(tiesOut(await check())).toBe(true);
  });

  it('refuse to change or delete an entry', async () => {
    await reset();
    const { sql } = test().database;
    await writeMirror(sql, [saleNotice(1, 'PAGO', 5)], {
      now: at(24),
      policy: DEFAULT_WATCH_POLICY,
    });
    await expect(sql`update ledger_entries set amount_cents = 1`).rejects.toThrow(/append-only/);
    await expect(sql`delete from ledger_entries`).rejects.toThrow(/append-only/);
  });

  it('find a record that does not tie out, and a closed day that changed', async () => {
    await reset();
    const { sql } = test().database;
    await writeMirror(sql, [saleNotice(1, 'PAGO', 5)], {
      now: at(24),
      policy: DEFAULT_WATCH_POLICY,
    });
    await closeThrough(sql, dayOf(0));
    await sql`insert into ledger_entries (resource_type, resource_id, account, amount_cents,
                effective_at, kind, source)
              values ('sale', 1, 'reserved', 7, ${at(6)}, 'payment', 'test')`;
    const result = await check();
    expect(result.untied).toEqual([
      { resourceType: 'sale', id: 1, account: 'reserved', expectedCents: 0, bookedCents: 7 },
    ]);
    expect(result.changedClosedDays.map((day) => day.day)).toEqual([dayOf(0)]);
  });
});
