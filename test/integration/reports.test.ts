import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPORTS,
  renderReport,
  runReport,
  type ReportFormat,
  type ReportName,
  type ReportRow,
} from '../../src/reports/index.js';
import { runCli } from '../support/cli.js';
import { useTestDatabase, type TestDatabase } from '../support/services.js';

// The finance views and `paymirror report` against a mirror seeded with known totals.
// São Paulo is UTC-3: 2026-03-11T02:30Z is still the 10th there, 2026-03-11T03:00Z is the 11th.
// Each CLI run costs about a second of CPU, so the CLI runs start together once the mirror is
// seeded and the tests await them; the other checks call the same report code in-process.
const DAY_A = '2026-03-10';
const DAY_B = '2026-03-11';
const DAY_C = '2026-03-12';

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  /** stdout and stderr together. */
  readonly output: string;
}

const test = useTestDatabase();
let runIds: readonly [number, number];
let cli: Record<keyof typeof CLI_RUNS, Promise<CliResult>>;

const CLI_RUNS = {
  dailyJson: ['daily', '--format', 'json'],
  dailyTable: ['daily', '--to', DAY_A],
  dailyEmpty: ['daily', '--from', '2030-01-01', '--format', 'json'],
  withdrawalsCsv: ['withdrawals', '--from', DAY_B, '--to', DAY_B, '--format', 'csv'],
  badFormat: ['daily', '--format', 'xml'],
  badDay: ['daily', '--from', '10/03/2026'],
  reversed: ['daily', '--from', DAY_B, '--to', DAY_A],
} satisfies Record<string, string[]>;

beforeAll(async () => {
  runIds = await seed(test());
  cli = Object.fromEntries(
    Object.entries(CLI_RUNS).map(([name, args]) => [name, report(args)]),
  ) as typeof cli;
});
afterAll(async () => {
  if (cli) await Promise.all(Object.values(cli));
});

function report(args: readonly string[]): Promise<CliResult> {
  const run = runCli(['report', ...args], { DATABASE_URL: test().url });
  let stdout = '';
  run.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return run.exited.then(({ code }) => ({ code, stdout, output: run.output() }));
}

async function succeeded(run: Promise<CliResult>): Promise<string> {
  const result = await run;
  expect(result.code, result.output).toBe(0);
  return result.stdout;
}

/** Enough CSV for these reports: no field holds a comma, a quote or a newline. */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...lines] = text.trimEnd().split('\n');
  const keys = (header ?? '').split(',');
  return lines.map((line) => {
    const values = line.split(',');
    return Object.fromEntries(keys.map((key, index) => [key, values[index] ?? '']));
  });
}

const asCsv = (rows: readonly Record<string, unknown>[]) =>
  rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, String(value ?? '')])),
  );

function inProcess(name: ReportName, from: string | null = null, to: string | null = null) {
  return runReport(test().database.sql, REPORTS[name], { from, to });
}

/** A json report's rows keyed back like the view (its keys are camelCase). */
function viewKeyed(json: string): Record<string, unknown>[] {
  const rows = JSON.parse(json) as Record<string, unknown>[];
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        expect(key).toMatch(/^[a-z][A-Za-z0-9]*$/);
        return [key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), value];
      }),
    ),
  );
}

async function rendered(name: ReportName, format: ReportFormat, from?: string, to?: string) {
  return renderReport(format, REPORTS[name].columns, await inProcess(name, from, to));
}

type SaleSeed = [number, string, string, number, ...(number | null)[]];

async function seed({ database: { sql } }: TestDatabase): Promise<[number, number]> {
  // id, method, status, amount, net, system fee (fee_cents follows it), reserve; created_at below
  const sales: [SaleSeed, string][] = [
    [[1001, 'PIX', 'PAGO', 113456, 110000, 3456, null], '2026-03-10T12:00:00Z'],
    [[1002, 'PIX', 'PAGO', 10000, 9500, 500, null], '2026-03-11T02:30:00Z'], // 23:30, day A
    [[1003, 'PIX', 'PAGO', 5000, null, null, null], '2026-03-11T03:30:00Z'], // 00:30, day B
    [[1004, 'CREDIT_CARD', 'PAGO', 20000, 19000, 1000, null], '2026-03-10T15:00:00Z'],
    [[1005, 'CREDIT_CARD', 'RECUSADO', 7000, null, null, null], '2026-03-10T16:00:00Z'],
    [[1006, 'BOLETO', 'PENDENTE', 30000, null, null, null], '2026-03-11T12:00:00Z'],
    [[1007, 'PIX', 'MED', 50000, 48000, 2000, 48000], '2026-03-10T13:00:00Z'],
    [[1008, 'CREDIT_CARD', 'CHARGEBACK', 80000, 76000, 4000, null], '2026-03-11T14:00:00Z'],
    [[1009, 'PIX', 'MED', 15000, 14000, 1000, 14000], '2026-03-10T14:00:00Z'],
    [[1010, 'PIX', 'PAGO', 999, 950, 49, null], '2026-03-12T12:00:00Z'],
  ];
  for (const [[id, method, status, amount, net, systemFee, reserve], createdAt] of sales) {
    await sql`
      insert into sales (id, payment_method, status, amount_cents, net_amount_cents,
                         system_fee_cents, reserve_amount_cents, created_at)
      values (${id}, ${method}, ${status}, ${amount}, ${net ?? null}, ${systemFee ?? null},
              ${reserve ?? null}, ${createdAt})`;
  }
  const history: [number, string | null, string, string, boolean?][] = [
    [1007, null, 'PENDENTE', '2026-03-10T13:00:00Z'],
    [1007, 'PENDENTE', 'PAGO', '2026-03-10T13:05:00Z'],
    [1007, 'PAGO', 'MED', '2026-03-12T10:00:00Z'],
    [1008, null, 'PAGO', '2026-03-11T14:05:00Z'],
    [1008, 'PAGO', 'CHARGEBACK', '2026-03-15T10:00:00Z'],
    // 1009 entered MED twice: its open dispute is the second one.
    [1009, null, 'PAGO', '2026-03-10T14:00:00Z'],
    [1009, 'PAGO', 'MED', '2026-03-12T09:00:00Z'],
    [1009, 'MED', 'PAGO', '2026-03-13T09:00:00Z'],
    [1009, 'PAGO', 'MED', '2026-03-14T12:00:00Z'],
    // 1010's MED was heard of only after the dispute had ended in its favour: observed only.
    [1010, null, 'PAGO', '2026-03-12T12:00:00Z'],
    [1010, 'PAGO', 'MED', '2026-03-13T08:00:01Z', false],
  ];
  for (const [id, from, to, at, entered = true] of history) {
    await sql`
      insert into status_history (resource_type, resource_id, from_status, to_status, source,
                                  recorded_at, observed_at, entered)
      values ('sale', ${id}, ${from}, ${to}, 'webhook', ${at}, ${at}, ${entered})`;
  }
  const withdrawals: [number, string, number, number | null, number | null, string][] = [
    [2001, 'COMPLETED', 15050, 14550, 500, '2026-03-10T20:00:00Z'],
    [2002, 'COMPLETED', 100000, 99500, 500, '2026-03-11T02:59:59Z'], // 23:59:59, day A
    [2003, 'PENDING', 20000, null, null, '2026-03-11T03:00:00Z'], // midnight, day B
    [2004, 'REJECTED', 5000, 4500, 500, '2026-03-11T18:00:00Z'],
  ];
  for (const [id, status, amount, net, fee, createdAt] of withdrawals) {
    await sql`
      insert into withdrawals (id, status, amount_cents, net_amount_cents, fee_total_cents,
                               created_at)
      values (${id}, ${status}, ${amount}, ${net}, ${fee}, ${createdAt})`;
  }
  const [run1] = await sql<{ id: string }[]>`
    insert into reconciliation_runs (trigger, status, started_at, finished_at, checked)
    values ('scheduled', 'partial', '2026-03-11T10:00:00Z', '2026-03-11T10:01:00Z', 9)
    returning id`;
  const [run2] = await sql<{ id: string }[]>`
    insert into reconciliation_runs (trigger, status, started_at, finished_at, checked)
    values ('cli:due', 'succeeded', '2026-03-12T10:00:00Z', '2026-03-12T10:00:05Z', 4)
    returning id`;
  if (!run1 || !run2) throw new Error('runs not inserted');
  const discrepancies: [string | null, string, number, string, string, string, string][] = [
    [run1.id, 'sale', 1003, 'status', 'corrected', 'reconcile', '2026-03-11T10:00:10Z'],
    [run1.id, 'sale', 1005, 'status', 'corrected', 'reconcile', '2026-03-11T10:00:20Z'],
    [run1.id, 'sale', 1004, 'amount_cents', 'corrected', 'reconcile', '2026-03-11T10:00:30Z'],
    [run1.id, 'withdrawal', 2003, 'existence', 'not_found', 'reconcile', '2026-03-11T10:00:40Z'],
    [null, 'sale', 1001, 'amount_cents', 'recorded', 'cross_channel', '2026-03-10T18:00:00Z'],
    [null, 'sale', 1003, 'amount_cents', 'recorded', 'cross_channel', '2026-03-11T18:00:00Z'],
  ];
  for (const [runId, type, id, field, action, source, at] of discrepancies) {
    await sql`
      insert into reconciliation_discrepancies (run_id, resource_type, resource_id, field,
                                                mirror_value, gateway_value, action, source,
                                                detected_at)
      values (${runId}, ${type}, ${id}, ${field}, 'm', 'g', ${action}, ${source}, ${at})`;
  }
  return [Number(run1.id), Number(run2.id)];
}

const daily = (
  day: string,
  payment_method: string,
  status: string,
  [sale_count, gross_cents, net_cents, net_unknown_count, system_fee_cents]: number[],
) => ({
  day,
  payment_method,
  status,
  sale_count,
  gross_cents,
  net_cents,
  net_unknown_count,
  system_fee_cents,
});

// count, gross, net, net unknown, fee
const DAILY = [
  daily(DAY_A, 'CREDIT_CARD', 'PAGO', [1, 20000, 19000, 0, 1000]),
  daily(DAY_A, 'CREDIT_CARD', 'RECUSADO', [1, 7000, 0, 1, 0]),
  daily(DAY_A, 'PIX', 'MED', [2, 65000, 62000, 0, 3000]),
  daily(DAY_A, 'PIX', 'PAGO', [2, 123456, 119500, 0, 3956]),
  daily(DAY_B, 'BOLETO', 'PENDENTE', [1, 30000, 0, 1, 0]),
  daily(DAY_B, 'CREDIT_CARD', 'CHARGEBACK', [1, 80000, 76000, 0, 4000]),
  daily(DAY_B, 'PIX', 'PAGO', [1, 5000, 0, 1, 0]),
  daily(DAY_C, 'PIX', 'PAGO', [1, 999, 950, 0, 49]),
];

describe('report daily', () => {
  it('totals per São Paulo day, method and status, in centavos (json)', async () => {
    expect(viewKeyed(await succeeded(cli.dailyJson))).toEqual(DAILY);
  });

  it('gives the same totals in csv, centavos as integers', async () => {
    expect(parseCsv(await rendered('daily', 'csv'))).toEqual(asCsv(DAILY));
  });

  it('shows reais in aligned columns in table output', async () => {
    const lines = (await succeeded(cli.dailyTable)).trimEnd().split('\n');
    expect(lines).toHaveLength(2 + 4);
    expect(lines[0]).toMatch(/^day +method +status +sales +gross +net +net unknown +fee$/);
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
    expect(lines[5]).toMatch(
      /^2026-03-10 +PIX +PAGO +2 +R\$ 1\.234,56 +R\$ 1\.195,00 +0 +R\$ 39,56$/,
    );
    // Money is right-aligned: each row's gross ends where the header's "gross" ends.
    const grossEnd = (lines[0] ?? '').indexOf('gross') + 'gross'.length;
    for (const line of lines.slice(2)) {
      const gross = /R\$ [0-9.]+,[0-9]{2}/.exec(line);
      expect(gross && gross.index + gross[0].length).toBe(grossEnd);
    }
  });

  it('filters on the São Paulo day, both ends inclusive', async () => {
    expect(await inProcess('daily', DAY_A, DAY_B)).toEqual(DAILY.slice(0, 7));
    // The sale at 02:30 UTC on the 11th belongs to the 10th.
    expect(await inProcess('daily', DAY_B, DAY_B)).toEqual(DAILY.slice(4, 7));
    expect(await inProcess('daily', null, DAY_A)).toEqual(DAILY.slice(0, 4));
    expect(await inProcess('daily', DAY_C)).toEqual(DAILY.slice(7));
  });

  it('prints [] or headers only for an empty range, and exits 0', async () => {
    expect(JSON.parse(await succeeded(cli.dailyEmpty))).toEqual([]);
    expect(await rendered('daily', 'csv', '2030-01-01')).toBe(
      'day,payment_method,status,sale_count,gross_cents,net_cents,net_unknown_count,' +
        'system_fee_cents\n',
    );
    expect((await rendered('daily', 'table', '2030-01-01')).trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('report disputes', () => {
  it('lists every dispute opened, ended or not, by the time it was observed to open', async () => {
    const rows = viewKeyed(await rendered('disputes', 'json'));
    expect(
      rows.map((row) => [row.sale_id, row.dispute, row.resolution, row.current_status]),
    ).toEqual([
      [1009, 'MED', 'PAGO', 'MED'],
      [1007, 'MED', null, 'MED'],
      [1010, 'MED', 'PAGO', 'PAGO'],
      [1009, 'MED', null, 'MED'],
      [1008, 'CHARGEBACK', null, 'CHARGEBACK'],
    ]);
    expect(rows[1]).toMatchObject({
      payment_method: 'PIX',
      amount_cents: 50000,
      net_amount_cents: 48000,
      reserve_amount_cents: 48000,
      opened_at: '2026-03-12T10:00:00.000Z',
    });
    expect(rows[4]).toMatchObject({
      payment_method: 'CREDIT_CARD',
      amount_cents: 80000,
      reserve_amount_cents: null,
      opened_at: '2026-03-15T10:00:00.000Z',
    });
  });

  it('filters on the São Paulo day the dispute opened (csv)', async () => {
    const rows = parseCsv(await rendered('disputes', 'csv', '2026-03-13', '2026-03-14'));
    expect(rows.map((row) => [row.sale_id, row.opened_at, row.resolution])).toEqual([
      ['1010', '2026-03-13T08:00:01.000Z', 'PAGO'],
      ['1009', '2026-03-14T12:00:00.000Z', ''],
    ]);
    const chargebacks = parseCsv(await rendered('disputes', 'csv', '2026-03-15'));
    expect(chargebacks.map((row) => [row.sale_id, row.dispute, row.reserve_amount_cents])).toEqual([
      ['1008', 'CHARGEBACK', ''],
    ]);
  });

  it('shows reais in the table', async () => {
    expect(await rendered('disputes', 'table')).toMatch(
      /1008 +CREDIT_CARD +CHARGEBACK +2026-03-15T10:00:00\.000Z +- +CHARGEBACK +R\$ 800,00 +R\$ 760,00 +-\n/,
    );
  });
});

describe('report withdrawals', () => {
  const withdrawal = (day: string, status: string, counts: number[]) => ({
    day,
    status,
    withdrawal_count: counts[0],
    amount_cents: counts[1],
    net_amount_cents: counts[2],
    fee_total_cents: counts[3],
  });
  const WITHDRAWALS = [
    withdrawal(DAY_A, 'COMPLETED', [2, 115050, 114050, 1000]),
    withdrawal(DAY_B, 'PENDING', [1, 20000, 0, 0]),
    withdrawal(DAY_B, 'REJECTED', [1, 5000, 4500, 500]),
  ];

  it('totals per São Paulo day and status', async () => {
    expect(await inProcess('withdrawals')).toEqual(WITHDRAWALS);
    expect(parseCsv(await succeeded(cli.withdrawalsCsv))).toEqual(asCsv(WITHDRAWALS.slice(1)));
  });

  it('shows reais in the table', async () => {
    expect(await rendered('withdrawals', 'table', undefined, DAY_A)).toMatch(
      /2026-03-10 +COMPLETED +2 +R\$ 1\.150,50 +R\$ 1\.140,50 +R\$ 10,00\n/,
    );
  });
});

describe('report discrepancies', () => {
  const crossChannel = (day: string): ReportRow => ({
    day,
    run_id: null,
    trigger: null,
    run_status: null,
    started_at: null,
    finished_at: null,
    source: 'cross_channel',
    resource_type: 'sale',
    field: 'amount_cents',
    action: 'recorded',
    discrepancy_count: 1,
  });

  it('counts per run, field and action, with cross-channel ones under a null run', async () => {
    const [run1, run2] = runIds;
    const run1Row = (resource_type: string, field: string, action: string, count: number) => ({
      day: DAY_B,
      run_id: run1,
      trigger: 'scheduled',
      run_status: 'partial',
      started_at: '2026-03-11T10:00:00.000Z',
      finished_at: '2026-03-11T10:01:00.000Z',
      source: 'reconcile',
      resource_type,
      field,
      action,
      discrepancy_count: count,
    });
    expect(viewKeyed(await rendered('discrepancies', 'json'))).toEqual([
      crossChannel(DAY_A),
      run1Row('sale', 'amount_cents', 'corrected', 1),
      run1Row('sale', 'status', 'corrected', 2),
      run1Row('withdrawal', 'existence', 'not_found', 1),
      crossChannel(DAY_B),
      {
        day: DAY_C,
        run_id: run2,
        trigger: 'cli:due',
        run_status: 'succeeded',
        started_at: '2026-03-12T10:00:00.000Z',
        finished_at: '2026-03-12T10:00:05.000Z',
        source: null,
        resource_type: null,
        field: null,
        action: null,
        discrepancy_count: 0,
      },
    ]);
  });

  it('filters on the day (csv)', async () => {
    const rows = parseCsv(await rendered('discrepancies', 'csv', DAY_A, DAY_A));
    expect(rows).toEqual(asCsv([crossChannel(DAY_A)]));
  });
});

describe('bad arguments', () => {
  it('rejects an unknown format before touching the database', async () => {
    const result = await cli.badFormat;
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.output).toMatch(
      /argument 'xml' is invalid\. Allowed choices are table, csv, json/,
    );
  });

  it('rejects a day not written YYYY-MM-DD', async () => {
    const result = await cli.badDay;
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /argument '10\/03\/2026' is invalid\. expected a day as YYYY-MM-DD/,
    );
  });

  it('rejects --from after --to', async () => {
    const result = await cli.reversed;
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/--from is after --to/);
  });
});
