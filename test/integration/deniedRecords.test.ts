import { describe, expect, it } from 'vitest';
import { journalFor } from '../../src/books/sql.js';
import { sumEntries } from '../../src/books/ledgerRules.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { ALL_DAYS, REPORTS, runReport } from '../../src/reports/index.js';
import { dbNow, noticeInput, saleNotice, saleRead, saleRecord } from '../support/mirrorInputs.js';
import { useTestDatabase } from '../support/services.js';

// Existence is a fact of its own (docs/finance.md): a record the gateway denies twice leaves
// every finance view; an authentic observation brings it back.
const test = useTestDatabase();
const sql = () => test().database.sql;
const watch = () => ({ now: new Date(), policy: DEFAULT_WATCH_POLICY });

const absent = (id: number): MirrorInput => ({
  kind: 'absent',
  resource: 'sale',
  id,
  httpStatus: 404,
  runId: null,
});

async function counted(id: number) {
  const [row] = await sql()<
    { denied: boolean; pending: boolean; daily: number; disputes: number }[]
  >`
    select s.denied_at is not null as denied, s.denial_read_at is not null as pending,
           (select coalesce(sum(sale_count), 0)::int from finance_daily_totals
             where day = (s.created_at at time zone 'America/Sao_Paulo')::date) as daily,
           (select count(*)::int from finance_disputes where sale_id = s.id) as disputes
      from sales s where s.id = ${id}`;
  return row;
}

/** What the books hold for the sale, per account. */
async function booked(id: number) {
  const entries = await journalFor(sql(), 'sale', id);
  return sumEntries(entries.map((e) => ({ account: e.account, amountCents: e.amount_cents })));
}

async function signed(id: number, status: 'PAGO' | 'MED') {
  const notice = saleNotice('postback', { id, status });
  await writeMirror(sql(), [noticeInput(notice, 'signed', await dbNow(sql()))], watch());
}

describe('a record the gateway denies', () => {
  it('leaves the finance views after a second denying read, and a signed postback restores it', async () => {
    const id = 82_001;
    await signed(id, 'PAGO');
    await signed(id, 'MED');
    expect(await counted(id)).toEqual({ denied: false, pending: false, daily: 1, disputes: 1 });

    const [first] = await writeMirror(sql(), [absent(id)], watch());
    expect(first?.outcome).toBe('not_found');
    // One denial is not believed: still counted, and read again first.
    expect(await counted(id)).toEqual({ denied: false, pending: true, daily: 1, disputes: 1 });
    const [again] = await sql()`select reconcile_requested_at is not null as r from sales
                                 where id = ${id}`;
    expect(again).toEqual({ r: true });

    await writeMirror(sql(), [absent(id)], watch());
    expect(await counted(id)).toEqual({ denied: true, pending: true, daily: 0, disputes: 0 });
    // The books reverse a denied record out, and book it again when it is restored.
    expect(await booked(id)).toEqual({ available: 0, reserved: 0 });
    const denied = await runReport(sql(), REPORTS.denied, ALL_DAYS);
    expect(denied).toEqual([
      expect.objectContaining({ resource_type: 'sale', resource_id: id, status: 'MED' }),
    ]);

    // A signed postback is an authentic observation: the sale exists after all.
    await signed(id, 'MED');
    expect(await counted(id)).toEqual({ denied: false, pending: false, daily: 1, disputes: 1 });
    expect(await runReport(sql(), REPORTS.denied, ALL_DAYS)).toEqual([]);
    expect((await booked(id)).reserved).toBeGreaterThan(0);
  });

  it('a read that answers the record clears a denial too', async () => {
    const id = 82_002;
    await signed(id, 'PAGO');
    const before = (await counted(id))?.daily ?? 0;
    await writeMirror(sql(), [absent(id)], watch());
    await writeMirror(sql(), [absent(id)], watch());
    expect(await counted(id)).toMatchObject({ denied: true, daily: before - 1 });
    await writeMirror(sql(), [saleRead(saleRecord(id, 'PAGO'), await dbNow(sql()))], watch());
    expect(await counted(id)).toMatchObject({ denied: false, pending: false, daily: before });
  });
});
