import { rowFromPostgres, type Cell, type Column, type ReportRow } from '../reports/columns.js';
import { renderCsv } from '../reports/render.js';
import { day, duration, money, status, when } from './format.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';

/**
 * Every table of the console is a report: columns of the reports' kinds and rows converted by
 * the reports' own rowFromPostgres. The page shows it for people (reais, São Paulo times) and
 * `?csv=<name>` downloads it through the CLI's CSV renderer (centavos, ISO 8601 UTC).
 */
export interface ConsoleColumn extends Column {
  /** Where the cell links to, e.g. an id to its record's page. */
  readonly href?: (row: ReportRow) => string | null;
  /** Shown as a status badge. */
  readonly badge?: boolean;
  /** How the page shows the cell, when not by its kind (the CSV keeps the cell as it is). */
  readonly display?: (row: ReportRow) => HtmlValue;
}

export interface ConsoleTable {
  /** Its `?csv=` name, and its CSV file's. */
  readonly name: string;
  readonly caption: string;
  readonly columns: readonly ConsoleColumn[];
  readonly rows: readonly ReportRow[];
  /** What an empty table says instead. */
  readonly empty: string;
  /** A class for a row that needs a second look (an unresolved cashout, a row not entered). */
  readonly rowClass?: (row: ReportRow) => string | null;
}

/** A table of typed rows (a query's), each converted to the columns' cells. */
export function consoleTable(
  spec: Omit<ConsoleTable, 'rows'>,
  raw: readonly object[],
): ConsoleTable {
  return {
    ...spec,
    rows: raw.map((row) => rowFromPostgres(spec.columns, row as Readonly<Record<string, unknown>>)),
  };
}

export function tableCsv(table: ConsoleTable): string {
  return renderCsv(table.columns, table.rows);
}

/** The table with its caption and its CSV link (`csvHref`: this page's URL asking for it). */
export function tableHtml(table: ConsoleTable, csvHref: string): SafeHtml {
  const head = html`<thead>
    <tr>
      ${table.columns.map(
        (column) => html`<th scope="col" class="${alignOf(column)}">${column.label}</th>`,
      )}
    </tr>
  </thead>`;
  const body =
    table.rows.length === 0
      ? html`<tbody>
          <tr>
            <td colspan="${table.columns.length}" class="empty">${table.empty}</td>
          </tr>
        </tbody>`
      : html`<tbody>
          ${table.rows.map(
            (row) =>
              html`<tr class="${table.rowClass?.(row) ?? ''}">
                ${table.columns.map(
                  (column) =>
                    html`<td class="${alignOf(column)}">
                      ${cellHtml(column, row, row[column.key])}
                    </td>`,
                )}
              </tr>`,
          )}
        </tbody>`;
  return html`<div class="table-block" id="table-${table.name}">
    <div class="table-head">
      <h2>${table.caption}</h2>
      <a class="csv" href="${csvHref}" download>CSV</a>
    </div>
    <div class="table-scroll">
      <table>
        ${head} ${body}
      </table>
    </div>
  </div>`;
}

function alignOf(column: Column): string {
  return column.kind === 'integer' || column.kind === 'cents' || column.kind === 'duration'
    ? 'num'
    : '';
}

function cellHtml(column: ConsoleColumn, row: ReportRow, cell: Cell | undefined): SafeHtml {
  const content = cellContent(column, row, cell ?? null);
  const href = cell === null || cell === undefined ? null : (column.href?.(row) ?? null);
  return href === null ? content : html`<a href="${href}">${content}</a>`;
}

function cellContent(column: ConsoleColumn, row: ReportRow, cell: Cell): SafeHtml {
  if (cell === null) return html`<span class="none">—</span>`;
  if (column.display) return html`${column.display(row)}`;
  if (column.badge && typeof cell === 'string') return status(cell);
  switch (column.kind) {
    case 'cents':
      return money(typeof cell === 'number' ? cell : null);
    case 'timestamp':
      return when(String(cell));
    case 'day':
      return day(String(cell));
    case 'duration':
      return html`<span title="${String(cell)}"
        >${duration(secondsOfIsoDuration(String(cell)))}</span
      >`;
    case 'integer':
    case 'text':
      return html`${cell}`;
  }
}

/** "P3DT4H5M6S" (what rowFromPostgres makes of seconds) → 273906. */
function secondsOfIsoDuration(iso: string): number | null {
  const match = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(iso);
  if (!match) return null;
  const [, sign, d, h, m, s] = match;
  const total =
    Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3_600 + Number(m ?? 0) * 60 + Number(s ?? 0);
  return sign ? -total : total;
}
