import { beforeAll, describe, expect, it } from 'vitest';
import { journalColumns } from '../../src/books/journalColumns.js';
import { closeThrough, journalDaily } from '../../src/books/sql.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import type { SaleStatus } from '../../src/domain/saleMachine.js';
import type { GatewayTransaction } from '../../src/gateway/types.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { renderReport } from '../../src/reports/render.js';
import {
  noticeInput,
  saleNotice as parsedSaleNotice,
  saleRead,
  saleRecord,
  withdrawalNotice as parsedWithdrawalNotice,
} from '../support/mirrorInputs.js';
import { useTestApp } from '../support/testApp.js';

// The console's books over HTTP: the Books page, a record's journal, the Totals page's label.
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const t = useTestApp({ env: () => ({ ADMIN_TOKEN }) });
const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

const get = (path: string, headers: Record<string, string> = asAdmin) =>
  fetch(`${t.app.metricsUrl}${path}`, { headers, redirect: 'manual' });
const text = async (path: string) => (await (await get(path)).text()).replace(/\s+/g, ' ');
const csv = async (path: string) => {
  const answer = await get(path);
  expect(answer.status, path).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
  return (await answer.text()).trim().split('\n');
};

/** Hours after a São Paulo midnight (03:00 UTC): hour 0 starts 2026-11-02. */
const BASE = Date.parse('2026-11-02T03:00:00Z');
const at = (hour: number) => new Date(BASE + hour * 3_600_000);
const SALE = 91_001;
const WITHDRAWAL = 92_001;
const RANGE = 'from=2026-11-01&to=2026-11-04';

function saleNotice(status: SaleStatus, hour: number): MirrorInput {
  const notice = parsedSaleNotice('postback', {
    id: SALE,
    status,
    paymentMethod: 'PIX',
    amount: '123456',
  });
  return noticeInput(notice, 'signed', at(hour), 'reconcile');
}

/** The gateway's read of the sale in MED, with its net: a fee learnt after its day closed. */
function saleReadInMed(hour: number): MirrorInput {
  const cents = (value: number) => value as GatewayTransaction['amountCents'];
  const record = saleRecord(SALE, 'MED', {
    amountCents: cents(123_456),
    netAmountCents: cents(120_000),
    systemFeeCents: cents(3_456),
    createdAt: at(0),
    completedAt: at(5),
  });
  return saleRead(record, at(hour));
}

function withdrawalNotice(hour: number): MirrorInput {
  const notice = parsedWithdrawalNotice({
    id: WITHDRAWAL,
    status: 'PENDING',
    updatedAt: at(hour).toISOString(),
  });
  return noticeInput(notice, 'unverified', at(hour), 'reconcile');
}

// Paid on 2 November, which is then closed; in MED and a withdrawal on 3 November; the net read
// afterwards belongs to the closed day, so it is booked on 3 November as an adjustment.
beforeAll(async () => {
  const sql = t.sql();
  const watch = { now: at(24 * 9), policy: DEFAULT_WATCH_POLICY };
  await writeMirror(sql, [saleNotice('PAGO', 5)], watch);
  await closeThrough(sql, '2026-11-02');
  await writeMirror(sql, [saleNotice('MED', 30)], watch);
  await writeMirror(sql, [withdrawalNotice(31)], watch);
  await writeMirror(sql, [saleReadInMed(40)], watch);
});

describe('the Books page', () => {
  it('is in the navigation and behind the admin token', async () => {
    for (const path of ['/console/books', `/console/books/chart.json?${RANGE}`]) {
      expect((await get(path, {})).status, path).toBe(401);
      expect((await get(path, { authorization: 'Bearer not-the-admin-token-0000' })).status).toBe(
        401,
      );
    }
    expect(await text('/console/deliveries')).toContain('<a href="/console/books" >Books</a');
    const page = await text('/console/books');
    expect(page).toContain('<a href="/console/books" aria-current="page" >Books</a');
  });

  it('shows each day in reais with São Paulo days, a closed day marked', async () => {
    const page = await text(`/console/books?${RANGE}`);
    expect(page).toMatch(/<time datetime="2026-11-02" title="2026-11-02" ?>02\/11\/2026<\/time/);
    expect(page).toContain('<time datetime="2026-11" title="2026-11">11/2026</time>');
    expect(page).toContain('R$ 1.234,56');
    expect(page).toContain('-R$ 1.385,06');
    expect(page).toMatch(/Books closed through<\/dt> <dd><time datetime="2026-11-02"/);
    expect(page).toContain('id="books-chart"');
    const rowsOf = (table: string) =>
      (page.split(`id="table-${table}"`)[1] ?? '').split('</table>')[0]?.split('<tr').slice(2) ??
      [];
    const closedRows = (table: string, day: string) =>
      rowsOf(table)
        .filter((row) => row.includes(`datetime="${day}"`))
        .map((row) => row.startsWith(' class="closed"') && row.includes('badge muted">closed<'));
    expect(closedRows('days', '2026-11-01')).toEqual([]);
    expect(closedRows('days', '2026-11-02')).toEqual([true]);
    expect(closedRows('days', '2026-11-03')).toEqual([false]);
    expect(closedRows('journal', '2026-11-02')).toEqual([true]);
    expect(closedRows('journal', '2026-11-03')).toEqual([false, false, false, false]);
  });

  it('downloads every table as the CLI renders CSV: centavos, ISO days', async () => {
    expect(await csv(`/console/books?${RANGE}&csv=days`)).toEqual([
      'day,books,available_cents,reserved_cents,available_balance_cents,reserved_balance_cents,entry_count',
      '2026-11-02,closed,123456,0,123456,0,1',
      '2026-11-03,open,-138506,120000,-15050,120000,4',
    ]);
    expect(await csv(`/console/books?${RANGE}&csv=journal`)).toEqual([
      'day,account,kind,payment_method,entry_count,amount_cents',
      '2026-11-02,available,payment,PIX,1,123456',
      '2026-11-03,available,dispute_opened,PIX,1,-123456',
      '2026-11-03,available,withdrawal,,1,-15050',
      '2026-11-03,reserved,adjustment,PIX,1,-3456',
      '2026-11-03,reserved,dispute_opened,PIX,1,123456',
    ]);
    // What `paymirror books report --from … --to … --format csv` prints, to the byte.
    const cli = renderReport(
      'csv',
      journalColumns,
      await journalDaily(t.sql(), '2026-11-01', '2026-11-04'),
    );
    expect(await (await get(`/console/books?${RANGE}&csv=journal`)).text()).toBe(cli);
    expect(await csv(`/console/books?${RANGE}&csv=months`)).toEqual([
      'month,books,account,kind,entry_count,amount_cents',
      '2026-11,closed in part,available,dispute_opened,1,-123456',
      '2026-11,closed in part,available,payment,1,123456',
      '2026-11,closed in part,available,withdrawal,1,-15050',
      '2026-11,closed in part,reserved,adjustment,1,-3456',
      '2026-11,closed in part,reserved,dispute_opened,1,123456',
    ]);
  });

  it("feeds its chart each day's movement and the reserve, as integers", async () => {
    const answer = await get(`/console/books/chart.json?${RANGE}`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      days: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'],
      closedThrough: '2026-11-02',
      available: [0, 123_456, -138_506, 0],
      reserved: [0, 0, 120_000, 0],
      reserve: [0, 0, 120_000, 120_000],
    });
  });

  it('refuses a range it cannot read or will not show', async () => {
    expect((await get('/console/books?from=2026-11-05&to=2026-11-01')).status).toBe(400);
    expect((await get('/console/books?from=2026-02-30')).status).toBe(400);
    expect((await get('/console/books?from=2024-01-01&to=2026-11-01')).status).toBe(400);
  });
});

describe("a record's journal", () => {
  it("lists a sale's entries, the entry an adjustment corrects, and its booked balance", async () => {
    const page = await text(`/console/sales/${SALE}`);
    expect(page).toContain('Money journal');
    expect(page).toMatch(/<dt>Available<\/dt> <dd><span class="money">R\$ 0,00<\/span>/);
    expect(page).toMatch(/<dt>Reserved<\/dt> <dd><span class="money">R\$ 1\.200,00<\/span>/);
    const lines = await csv(`/console/sales/${SALE}?csv=journal`);
    expect(lines[0]).toBe(
      'id,effective_at,account,kind,amount_cents,source,recorded_at,corrects_entry_id,' +
        'original_kind,original_effective_at',
    );
    const cells = lines.slice(1).map((line) => line.split(','));
    expect(
      cells.map(([, effective, account, kind, amount, source]) => [
        effective,
        account,
        kind,
        amount,
        source,
      ]),
    ).toEqual([
      [at(5).toISOString(), 'available', 'payment', '123456', 'postback'],
      [at(30).toISOString(), 'available', 'dispute_opened', '-123456', 'postback'],
      [at(30).toISOString(), 'reserved', 'dispute_opened', '123456', 'postback'],
      [at(24).toISOString(), 'reserved', 'adjustment', '-3456', 'reconcile'],
    ]);
    const [, , third, adjustment] = cells;
    expect(adjustment?.slice(7)).toEqual([third?.[0], 'fee_adjustment', at(5).toISOString()]);
    expect(adjustment?.[6]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  it("lists a withdrawal's entries and its booked balance", async () => {
    const page = await text(`/console/withdrawals/${WITHDRAWAL}`);
    expect(page).toContain('Money journal');
    expect(page).toMatch(/<dt>Available<\/dt> <dd><span class="money">-R\$ 150,50<\/span>/);
    const lines = await csv(`/console/withdrawals/${WITHDRAWAL}?csv=journal`);
    expect(lines.slice(1).map((line) => line.split(',').slice(1, 6))).toEqual([
      [at(31).toISOString(), 'available', 'withdrawal', '-15050', 'webhook'],
    ]);
  });
});

describe('the Totals page', () => {
  it('says its chart is the state today by creation day, and points to the Books', async () => {
    const page = await text('/console/totals');
    expect(page).toContain('state today, by creation day');
    expect(page).toMatch(/by the day it moved is in the <a href="\/console\/books">Books<\/a>/);
  });
});
