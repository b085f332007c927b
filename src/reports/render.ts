import { formatBrl } from '../domain/money.js';
import type { Cell, Column, ReportRow } from './columns.js';

export const REPORT_FORMATS = ['table', 'csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Each format ends with a newline; no rows gives headers only (table, csv) or `[]` (json). */
export function renderReport(
  format: ReportFormat,
  columns: readonly Column[],
  rows: readonly ReportRow[],
): string {
  switch (format) {
    case 'table':
      return renderTable(columns, rows);
    case 'csv':
      return renderCsv(columns, rows);
    case 'json':
      // JSON keys are camelCase like every command's; csv keeps the view's column names.
      return renderJson(rows.map(camelCaseKeys));
  }
}

/** For people: aligned columns, numbers to the right, money in reais ("R$ 1.234,56"). */
export function renderTable(columns: readonly Column[], rows: readonly ReportRow[]): string {
  const body = rows.map((row) => columns.map((column) => tableText(column, row[column.key])));
  const widths = columns.map((column, index) =>
    Math.max(column.label.length, ...body.map((cells) => (cells[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, index) => {
        const width = widths[index] ?? 0;
        return alignsRight(columns[index]) ? text.padStart(width) : text.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => column.label));
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [header, rule, ...body.map(line)].join('\n') + '\n';
}

function alignsRight(column: Column | undefined): boolean {
  return column?.kind === 'integer' || column?.kind === 'cents';
}

function tableText(column: Column, cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return column.absent ?? '-';
  if (column.kind === 'cents' && typeof cell === 'number') return formatBrl(cell);
  // One row, one line: a stray newline or tab in a stored text must not break the columns.
  return String(cell).replace(/[\t\n\r\v\f]/g, ' ');
}

/** A header of keys, then one line per row (RFC 4180 quoting); centavos as integers, null empty. */
export function renderCsv(columns: readonly Column[], rows: readonly ReportRow[]): string {
  const lines = [
    columns.map((column) => csvField(column.key)).join(','),
    ...rows.map((row) => columns.map((column) => csvField(row[column.key] ?? null)).join(',')),
  ];
  return lines.join('\n') + '\n';
}

function csvField(cell: Cell): string {
  if (cell === null) return '';
  const text = typeof cell === 'string' ? neutralised(cell) : String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Text such as a buyer's name comes from outside: a spreadsheet would run `=HYPERLINK(...)` as
 * a formula (OWASP "CSV injection"). A leading apostrophe makes it text; numbers are left alone.
 */
function neutralised(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** An array of objects keyed like the view; centavos as JSON numbers. */
export function renderJson(rows: readonly ReportRow[]): string {
  return `${JSON.stringify(rows, null, 2)}\n`;
}

function camelCaseKeys(row: ReportRow): ReportRow {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()),
      value,
    ]),
  );
}
