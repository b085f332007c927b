import { dailyMovement, monthlyTotals } from '../../books/consoleQueries.js';
import { journalColumns } from '../../books/journalColumns.js';
import { balanceAt, closedThrough, journalDaily } from '../../books/sql.js';
import type { ReportRow } from '../../reports/columns.js';
import { addDays, daysBetween, saoPauloDay } from '../days.js';
import { day, int, money, month } from '../format.js';
import { html } from '../html.js';
import { CONSOLE_PATH, facts } from '../layout.js';
import type { PageContext, PageHandler } from '../pageContext.js';
import { dayRangeParams, queryOf } from '../params.js';
import { consoleTable, type ConsoleColumn } from '../table.js';

/** Days shown when the URL names none: the last 30, today (São Paulo) included. */
const DEFAULT_DAYS = 30;
/** The longest range one page shows, a day per row. */
const MAX_DAYS = 400;

interface BooksRange {
  readonly from: string;
  readonly to: string;
}

/**
 * The books (docs/finance.md, "The journal"): money by the São Paulo day it moved, per account
 * and kind, each closed day marked; per month; a chart of each day's movement and of the reserve.
 * The journal table is `paymirror books report`, CSV included.
 */
export const booksPage: PageHandler = async (context) => {
  const range = rangeOf(context);
  if ('problem' in range) {
    return { kind: 'bad_request', problem: range.problem, back: `${CONSOLE_PATH}/books` };
  }
  const sql = context.sources.sql;
  const [days, journal, months, through, now] = await Promise.all([
    dailyMovement(sql, range.from, range.to),
    journalDaily(sql, range.from, range.to),
    monthlyTotals(sql, range.from, range.to),
    closedThrough(sql),
    balanceAt(sql, context.sources.now()),
  ]);
  const closed = (value: string) => through !== null && value <= through;
  const dayTable = consoleTable(
    {
      name: 'days',
      caption: 'Each day money moved: how much, and what each account held at its end',
      columns: dayColumns,
      empty: 'No money moved in these days.',
      rowClass: (row) => (row.books === 'closed' ? 'closed' : null),
    },
    days
      .filter((row) => int(row.entry_count, 'entry_count') !== 0)
      .map((row) => ({ ...row, books: closed(row.day) ? 'closed' : 'open' })),
  );
  const journalTable = consoleTable(
    {
      name: 'journal',
      caption: 'Per day, account, kind and payment method (paymirror books report)',
      columns: journalTableColumns(closed),
      empty: 'No money moved in these days.',
      rowClass: (row) => (closed(String(row.day)) ? 'closed' : null),
    },
    journal,
  );
  const monthTable = consoleTable(
    {
      name: 'months',
      caption: 'Per month, account and kind (the whole months of these days)',
      columns: monthColumns,
      empty: 'No money moved in these months.',
      rowClass: (row) => (row.books === 'closed' ? 'closed' : null),
    },
    months.map((row) => ({ ...row, books: monthState(row.month, through) })),
  );
  const moved = (key: string) => sum(dayTable.rows, key);
  const chartQuery = new URLSearchParams({ from: range.from, to: range.to });
  return {
    kind: 'page',
    title: 'Books',
    section: 'books',
    scripts: ['chart.umd.min.js'],
    body: html`<h1>Books</h1>
      <p class="note">
        Money by the day it moved (São Paulo), from the journal every state change books. A closed
        day never changes: what moves later is booked on the first open day as an adjustment. Sales
        by the day they were created are on <a href="${CONSOLE_PATH}/totals">Totals</a>.
      </p>
      <form class="filters" method="get" action="${CONSOLE_PATH}/books">
        <div class="field">
          <label for="books-from">From (day moved, São Paulo)</label>
          <input id="books-from" name="from" type="date" value="${range.from}" />
        </div>
        <div class="field">
          <label for="books-to">To</label>
          <input id="books-to" name="to" type="date" value="${range.to}" />
        </div>
        <div class="field actions"><button type="submit">Show</button></div>
      </form>
      <section class="figures" aria-label="Summary">
        <div><span>Available now</span>${money(int(now.available, 'available'))}</div>
        <div><span>Reserved now</span>${money(int(now.reserved, 'reserved'))}</div>
        <div><span>Available moved in these days</span>${money(moved('available_cents'))}</div>
        <div><span>Reserved moved in these days</span>${money(moved('reserved_cents'))}</div>
      </section>
      ${facts([['Books closed through', through === null ? 'no day closed yet' : day(through)]])}
      <section class="chart">
        <h2>Daily movement and the reserve</h2>
        <div class="chart-box">
          <canvas
            id="books-chart"
            data-source="${CONSOLE_PATH}/books/chart.json?${chartQuery.toString()}"
            role="img"
            aria-label="Bars: what each account gained or lost each day; line: what the reserve held at the end of each day; the same figures are in the table below"
          ></canvas>
        </div>
      </section>
      ${context.table(dayTable)} ${context.table(journalTable)} ${context.table(monthTable)}`,
  };
};

/** The chart's figures: signed centavos per day (integers throughout), quiet days included. */
export const booksChartData: PageHandler = async (context) => {
  const range = rangeOf(context);
  if ('problem' in range) {
    return { kind: 'bad_request', problem: range.problem, back: `${CONSOLE_PATH}/books` };
  }
  const [days, through] = await Promise.all([
    dailyMovement(context.sources.sql, range.from, range.to),
    closedThrough(context.sources.sql),
  ]);
  const cents = (key: keyof (typeof days)[number]) => days.map((row) => int(row[key], key) ?? 0);
  return {
    kind: 'json',
    body: {
      days: days.map((row) => row.day),
      closedThrough: through,
      available: cents('available_cents'),
      reserved: cents('reserved_cents'),
      reserve: cents('reserved_balance_cents'),
    },
  };
};

const dayColumns: readonly ConsoleColumn[] = [
  { key: 'day', label: 'day', kind: 'day' },
  { key: 'books', label: 'books', kind: 'text', badge: true },
  { key: 'available_cents', label: 'available moved', kind: 'cents' },
  { key: 'reserved_cents', label: 'reserved moved', kind: 'cents' },
  { key: 'available_balance_cents', label: 'available at its end', kind: 'cents' },
  { key: 'reserved_balance_cents', label: 'reserved at its end', kind: 'cents' },
  { key: 'entry_count', label: 'entries', kind: 'integer' },
];

/** `books report`'s columns; a closed day says so on the page (its CSV is the CLI's). */
function journalTableColumns(closed: (day: string) => boolean): readonly ConsoleColumn[] {
  return journalColumns.map((column) =>
    column.key === 'day'
      ? {
          ...column,
          display: (row: ReportRow) =>
            closed(String(row.day))
              ? html`${day(String(row.day))} <span class="badge muted">closed</span>`
              : day(String(row.day)),
        }
      : column,
  );
}

const monthColumns: readonly ConsoleColumn[] = [
  { key: 'month', label: 'month', kind: 'text', display: (row) => month(String(row.month)) },
  { key: 'books', label: 'books', kind: 'text', badge: true },
  { key: 'account', label: 'account', kind: 'text' },
  { key: 'kind', label: 'kind', kind: 'text' },
  { key: 'entry_count', label: 'entries', kind: 'integer' },
  { key: 'amount_cents', label: 'amount', kind: 'cents' },
];

/** A month is closed when its last day is, closed in part when only its first days are. */
function monthState(value: string, through: string | null): string {
  if (through === null || through < `${value}-01`) return 'open';
  const [year, monthNumber] = value.split('-').map(Number);
  const last = new Date(Date.UTC(year ?? 0, monthNumber ?? 0, 0)).toISOString().slice(0, 10);
  return through >= last ? 'closed' : 'closed in part';
}

/** Integer centavos added up; a total past what a double holds exactly is an error. */
function sum(rows: readonly ReportRow[], key: string): number {
  let total = 0;
  for (const row of rows) {
    const cell = row[key];
    if (typeof cell === 'number') total += cell;
  }
  return int(total, key) ?? 0;
}

/** The URL's days; a missing end is today, a missing start 30 days before the end. */
function rangeOf(context: PageContext): BooksRange | { problem: string } {
  const parsed = dayRangeParams.safeParse(queryOf(context.url));
  if (!parsed.success) return { problem: parsed.error.issues.map((i) => i.message).join('; ') };
  const to = parsed.data.to ?? saoPauloDay(context.sources.now());
  const from = parsed.data.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  if (from > to) return { problem: '"from" is after "to"' };
  if (daysBetween(from, to) > MAX_DAYS) {
    return { problem: `at most ${MAX_DAYS} days at once: ask for a shorter range` };
  }
  return { from, to };
}
