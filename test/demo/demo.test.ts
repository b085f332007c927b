import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSnapshots, type Snapshot } from '../../src/demo/compare.js';
import { runDemo, type DemoResult } from '../../src/demo/runDemo.js';
import { buildScenario, SALE_PATHS } from '../../src/demo/scenario.js';
import { formatComparison } from '../../src/demo/table.js';
import { REPORTS } from '../../src/reports/index.js';
import { runReport } from '../../src/reports/report.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

describe('the demo, end to end (sandbox → paymirror → mirror, faults on)', () => {
  const test = useTestDatabase();
  let queue: TestQueuePrefix;
  let result: DemoResult;
  let report = '';

  beforeAll(async () => {
    queue = createTestQueuePrefix();
    result = await runDemo({
      databaseUrl: test().url,
      redisUrl: queue.redisUrl,
      queuePrefix: queue.prefix,
      sales: 30,
      withdrawals: 4,
      seed: 7,
      faults: true,
      drainTimeoutMs: 20_000,
      output: (text) => {
        report += text;
      },
    });
  });
  afterAll(async () => {
    await queue?.drop();
  });

  it('leaves no mismatch after reconciliation and exits 0', () => {
    expect(result.after.mismatchingRecords, report).toBe(0);
    expect(result.after.matches).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.pass.status).toBe('succeeded');
    expect(result.inbox).toMatchObject({ pending: 0, failed: 0, quarantined: 0 });
  });

  it('ends with books that tie out, record by record and with the gateway balance', () => {
    expect(result.books, report).toMatchObject({ tiesOut: true, matchesGateway: true });
    expect(result.books.entries).toBeGreaterThan(0);
    expect(result.books.availableCents).toBe(result.books.gatewayAvailableCents);
    expect(report).toMatch(/^BOOKS$/m);
    expect(report).toMatch(/books check: every record ties out → OK/);
  });

  it('ends with per-status counts and centavo sums equal to the sandbox state', async () => {
    const truth = totals(result.truth.sales.map((s) => [s.status, s.amountCents]));
    const rows = await test().database.sql<{ status: string; amount_cents: string }[]>`
      select status, amount_cents from sales`;
    const mirror = totals(rows.map((row) => [row.status, Number(row.amount_cents)]));
    expect(mirror).toEqual(truth);

    const truthWithdrawals = totals(result.truth.withdrawals.map((w) => [w.status, w.amountCents]));
    const withdrawalRows = await test().database.sql<{ status: string; amount_cents: string }[]>`
      select status, amount_cents from withdrawals`;
    // The read form says FAILED for what notifications (and the sandbox) call REJECTED.
    const mirrorWithdrawals = totals(
      withdrawalRows.map((row) => [
        row.status === 'FAILED' ? 'REJECTED' : row.status,
        Number(row.amount_cents),
      ]),
    );
    expect(mirrorWithdrawals).toEqual(truthWithdrawals);
    expect(result.after.sales.rows.every((row) => row.matches)).toBe(true);
    expect(result.after.withdrawals.rows.every((row) => row.matches)).toBe(true);
  });

  it('ran with faults that struck, every path, and a refused cashout', () => {
    expect(result.truth.sales).toHaveLength(30);
    expect(result.deliveries.duplicated).toBeGreaterThan(0);
    expect(result.deliveries.reordered).toBeGreaterThan(0);
    expect(result.deliveries.dropped).toBeGreaterThan(0);
    expect(new Set(result.truth.sales.map((s) => s.status))).toEqual(
      new Set(['PENDENTE', 'EM_PROCESSAMENTO', 'PAGO', 'CANCELADO', 'RECUSADO', 'ESTORNADO']),
    );
    expect(result.drive.refusedCashouts.map((r) => r.errorType)).toEqual(['INSUFFICIENT_BALANCE']);
    expect(result.truth.withdrawals.map((w) => w.status).sort()).toEqual([
      'COMPLETED',
      'COMPLETED',
      'REJECTED',
    ]);
    // Cards awaiting the processor are never notified (docs/gateway.md 6.2): only a pass can see
    // them.
    expect(result.before.mismatchingRecords).toBeGreaterThan(0);
    expect(report).toContain('BEFORE RECONCILIATION');
    expect(report).toContain('AFTER RECONCILIATION');
    expect(report).toMatch(/bin\/paymirror report disputes/);
  });

  it('keeps every authentic dispute notification in history, and report disputes lists them', async () => {
    const sql = test().database.sql;
    const heard = await sql<{ id: number; status: string }[]>`
      select distinct resource_id as id, notified_status as status from inbox_events
       where resource_type = 'sale' and notified_status in ('MED', 'CHARGEBACK')
         and state = 'processed' and outcome not in ('forged', 'unconfirmed')
       order by 1, 2`;
    expect(heard.length).toBeGreaterThan(0);
    const kept = await sql<{ id: number; status: string }[]>`
      select distinct resource_id as id, to_status as status from status_history
       where resource_type = 'sale' and to_status in ('MED', 'CHARGEBACK')
       order by 1, 2`;
    expect(kept).toEqual(heard);
    const listed = await runReport(sql, REPORTS.disputes, { from: null, to: null });
    expect(new Set(listed.map((row) => String(row.sale_id)))).toEqual(
      new Set(heard.map((row) => String(row.id))),
    );
  });

  it('deleted every Redis key under its queue prefix', async () => {
    expect(await queue.deleteKeys()).toBe(0);
  });
});

function totals(records: [string, number][]): Record<string, { count: number; cents: number }> {
  const out: Record<string, { count: number; cents: number }> = {};
  for (const [status, cents] of records) {
    const current = out[status] ?? { count: 0, cents: 0 };
    out[status] = { count: current.count + 1, cents: current.cents + cents };
  }
  return out;
}

describe('compareSnapshots', () => {
  const truth: Snapshot = {
    sales: [
      { id: 1, status: 'PAGO', amountCents: 10_000, paymentMethod: 'PIX' },
      { id: 2, status: 'ESTORNADO', amountCents: 5_050, paymentMethod: 'CREDIT_CARD' },
      { id: 3, status: 'PENDENTE', amountCents: 1_999, paymentMethod: 'BOLETO' },
    ],
    withdrawals: [{ id: 1, status: 'REJECTED', amountCents: 15_000 }],
  };

  it('matches identical snapshots, and REJECTED (notified) with FAILED (read)', () => {
    const mirror: Snapshot = {
      sales: truth.sales,
      withdrawals: [{ id: 1, status: 'FAILED', amountCents: 15_000 }],
    };
    const comparison = compareSnapshots(truth, mirror);
    expect(comparison.matches).toBe(true);
    expect(comparison.mismatchingRecords).toBe(0);
    expect(comparison.withdrawals.rows).toEqual([
      expect.objectContaining({ status: 'REJECTED', truthCount: 1, mirrorCount: 1, matches: true }),
    ]);
  });

  it('reports a record left behind, one missing, one unknown and a wrong amount', () => {
    const mirror: Snapshot = {
      sales: [
        { id: 1, status: 'PAGO', amountCents: 10_001, paymentMethod: 'PIX' },
        { id: 2, status: 'PAGO', amountCents: 5_050, paymentMethod: 'CREDIT_CARD' },
        { id: 9, status: 'PAGO', amountCents: 1_999, paymentMethod: 'BOLETO' },
      ],
      withdrawals: [],
    };
    const comparison = compareSnapshots(truth, mirror);
    expect(comparison.matches).toBe(false);
    expect(comparison.mismatchingRecords).toBe(5);
    expect(comparison.sales.mismatches).toEqual([
      {
        resource: 'sale',
        id: 1,
        kind: 'differs',
        differences: [{ field: 'amountCents', truth: '10000', mirror: '10001' }],
      },
      {
        resource: 'sale',
        id: 2,
        kind: 'differs',
        differences: [{ field: 'status', truth: 'ESTORNADO', mirror: 'PAGO' }],
      },
      { resource: 'sale', id: 3, kind: 'missing_in_mirror' },
      { resource: 'sale', id: 9, kind: 'unknown_to_gateway' },
    ]);
    expect(comparison.withdrawals.mismatches).toEqual([
      { resource: 'withdrawal', id: 1, kind: 'missing_in_mirror' },
    ]);
    const byStatus = Object.fromEntries(comparison.sales.rows.map((row) => [row.status, row]));
    expect(byStatus.PAGO).toMatchObject({
      truthCount: 1,
      truthCents: 10_000,
      mirrorCount: 3,
      mirrorCents: 17_050,
      matches: false,
    });
    expect(byStatus.ESTORNADO).toMatchObject({ truthCount: 1, mirrorCount: 0, matches: false });
    // Same count and sum overall, yet the records differ: the totals alone would not tell.
    expect(comparison.sales.total).toMatchObject({ truthCount: 3, mirrorCount: 3 });

    const table = formatComparison('BEFORE', comparison);
    expect(table).toMatch(/ESTORNADO .*R\$ 50,50 .*R\$ 0,00 +✗ mismatch/);
    expect(table).toContain('sale 2: status sandbox ESTORNADO, mirror PAGO');
    expect(table).toContain('Mismatching records: 5');
  });
});

describe('buildScenario', () => {
  it('gives the default 200 sales every path and method of docs/gateway.md 3.1, seed-stable', () => {
    const scenario = buildScenario({ sales: 200, withdrawals: 10, seed: 42 });
    expect(new Set(scenario.sales.map((sale) => sale.path))).toEqual(
      new Set(SALE_PATHS.map((path) => path.name)),
    );
    expect(new Set(scenario.sales.map((sale) => sale.method))).toEqual(
      new Set(['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO']),
    );
    const moves = scenario.sales.map((sale) => sale.moves.join('→'));
    for (const path of ['PAGO→MED→PAGO', 'PAGO→MED→ESTORNADO', 'PAGO→CHARGEBACK→PAGO']) {
      expect(moves).toContain(path);
    }
    expect(scenario.withdrawals.map((w) => w.kind).sort()).toEqual([
      ...Array<string>(5).fill('completed'),
      ...Array<string>(2).fill('insufficient'),
      ...Array<string>(3).fill('rejected'),
    ]);
    expect(buildScenario({ sales: 200, withdrawals: 10, seed: 42 })).toEqual(scenario);
    expect(buildScenario({ sales: 200, withdrawals: 10, seed: 43 })).not.toEqual(scenario);
    for (const sale of scenario.sales) {
      expect(Number.isSafeInteger(sale.amountCents)).toBe(true);
      expect(sale.items.reduce((sum, item) => sum + item.unitPriceCents, 0)).toBe(sale.amountCents);
    }
  });
});
