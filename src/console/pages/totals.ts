import type { ReportRow } from '../../reports/columns.js';
import { REPORTS, runReport, type DayRange } from '../../reports/index.js';
import { addDays, saoPauloDay } from '../days.js';
import { int, money } from '../format.js';
import { html } from '../html.js';
import { CONSOLE_PATH } from '../layout.js';
import type { PageContext, PageHandler } from '../pageContext.js';
import { dayRangeParams, queryOf } from '../params.js';
import { openDisputes } from '../../reports/sql.js';
import { consoleTable, type ConsoleColumn } from '../table.js';
import { linkFrom, saleHref } from './columns.js';

/** Days shown when the URL names none: the last 30, today (São Paulo) included. */
const DEFAULT_DAYS = 30;

/**
 * Totals from the finance views (docs/finance.md): sales and withdrawals per São Paulo day,
 * with a chart of the daily amounts, and the disputes open now with their age. Each table is
 * the CLI's report (`paymirror report daily|withdrawals`), CSV included.
 */
export const totalsPage: PageHandler = async (context) => {
  const range = rangeOf(context);
  if ('problem' in range) {
    return { kind: 'bad_request', problem: range.problem, back: `${CONSOLE_PATH}/totals` };
  }
  const sql = context.sources.sql;
  const [daily, withdrawals, disputes] = await Promise.all([
    runReport(sql, REPORTS.daily, range),
    runReport(sql, REPORTS.withdrawals, range),
    openDisputes(sql),
  ]);
  const disputeTable = consoleTable(
    {
      name: 'open-disputes',
      caption: 'Open disputes (MED and chargebacks), oldest first',
      columns: disputeColumns,
      empty: 'No sale is in MED or CHARGEBACK.',
    },
    disputes,
  );
  const held = sum(disputeTable.rows, 'amount_cents');
  const reserved = sum(disputeTable.rows, 'reserve_amount_cents');
  const paid = sum(
    daily.filter((row) => row.status === 'PAGO'),
    'gross_cents',
  );
  const chartQuery = new URLSearchParams({ from: range.from ?? '', to: range.to ?? '' });
  return {
    kind: 'page',
    title: 'Totals',
    section: 'totals',
    scripts: ['chart.umd.min.js'],
    body: html`<h1>Totals</h1>
      <form class="filters" method="get" action="${CONSOLE_PATH}/totals">
        <div class="field">
          <label for="range-from">From (day created, São Paulo)</label>
          <input id="range-from" name="from" type="date" value="${range.from ?? ''}" />
        </div>
        <div class="field">
          <label for="range-to">To</label>
          <input id="range-to" name="to" type="date" value="${range.to ?? ''}" />
        </div>
        <div class="field actions"><button type="submit">Show</button></div>
      </form>
      <section class="figures" aria-label="Summary">
        <div><span>Paid sales created in these days (gross, now PAGO)</span>${money(paid)}</div>
        <div><span>In open disputes now (gross)</span>${money(held)}</div>
        <div><span>Held in the gateway's reserve for them</span>${money(reserved)}</div>
      </section>
      <section class="chart">
        <h2>Sales per day: state today, by creation day (gross)</h2>
        <p class="note">
          Each sale counts on the day it was created, under the status it has now: a refund or a
          dispute moves it here after the fact. Money by the day it moved is in the
          <a href="${CONSOLE_PATH}/books">Books</a>.
        </p>
        <div class="chart-box">
          <canvas
            id="daily-chart"
            data-source="${CONSOLE_PATH}/totals/chart.json?${chartQuery.toString()}"
            role="img"
            aria-label="Gross amount of the sales created each day, stacked by their status today; the same figures are in the table below"
          ></canvas>
        </div>
      </section>
      ${context.table(reportTable('sales', 'Sales per day, method and status', REPORTS.daily.columns, daily))}
      ${context.table(
        reportTable(
          'withdrawals',
          'Withdrawals per day and status',
          REPORTS.withdrawals.columns,
          withdrawals,
        ),
      )}
      ${context.table(disputeTable)}`,
  };
};

/** The chart's figures: gross centavos per day, one series per status (integers throughout). */
export const totalsChartData: PageHandler = async (context) => {
  const range = rangeOf(context);
  if ('problem' in range) {
    return { kind: 'bad_request', problem: range.problem, back: `${CONSOLE_PATH}/totals` };
  }
  const daily = await runReport(context.sources.sql, REPORTS.daily, range);
  const days = [...new Set([...daysOf(range), ...daily.map((row) => String(row.day))])].sort();
  const statuses = [...new Set(daily.map((row) => String(row.status)))].sort();
  const series = statuses.map((status) => ({
    status,
    cents: days.map((day) =>
      sum(
        daily.filter((row) => row.day === day && row.status === status),
        'gross_cents',
      ),
    ),
  }));
  return { kind: 'json', body: { days, series } };
};

function reportTable(
  name: string,
  caption: string,
  columns: readonly ConsoleColumn[],
  rows: readonly ReportRow[],
) {
  return { name, caption, columns, rows, empty: 'Nothing in these days.' };
}

const disputeColumns: readonly ConsoleColumn[] = [
  { key: 'sale_id', label: 'sale', kind: 'integer', href: linkFrom('sale_id', saleHref) },
  { key: 'status', label: 'dispute', kind: 'text', badge: true },
  { key: 'payment_method', label: 'method', kind: 'text' },
  { key: 'amount_cents', label: 'amount', kind: 'cents' },
  { key: 'net_amount_cents', label: 'net', kind: 'cents' },
  { key: 'reserve_amount_cents', label: 'reserve', kind: 'cents' },
  { key: 'since', label: 'open since', kind: 'timestamp' },
  { key: 'age_seconds', label: 'age', kind: 'duration' },
];

/** Integer centavos added up; a total past what a double holds exactly is an error, not a guess. */
function sum(rows: readonly ReportRow[], key: string): number {
  let total = 0;
  for (const row of rows) {
    const cell = row[key];
    if (typeof cell === 'number') total += cell;
  }
  const checked = int(total, key);
  return checked ?? 0;
}

function rangeOf(context: PageContext): DayRange | { problem: string } {
  const parsed = dayRangeParams.safeParse(queryOf(context.url));
  if (!parsed.success) return { problem: parsed.error.issues.map((i) => i.message).join('; ') };
  const given = parsed.data;
  if (given.from !== null || given.to !== null || context.url.searchParams.has('from')) {
    return { from: given.from, to: given.to };
  }
  const today = saoPauloDay(context.sources.now());
  return { from: addDays(today, -(DEFAULT_DAYS - 1)), to: today };
}

/** Every day of a closed range (a quiet day shows as one), when it is not years long. */
function daysOf(range: DayRange): string[] {
  if (range.from === null || range.to === null) return [];
  const days: string[] = [];
  for (
    let day = range.from;
    day <= range.to && days.length < MAX_CHART_DAYS;
    day = addDays(day, 1)
  ) {
    days.push(day);
  }
  return days;
}

const MAX_CHART_DAYS = 400;
