import { InvalidArgumentError, Option } from 'commander';
import type { Cell, Column, ReportRow } from '../reports/columns.js';
import { renderCsv, renderJson, renderTable } from '../reports/render.js';

/**
 * How commands print records: one renderer for every command (the reports' own), the same
 * three formats everywhere, camelCase keys, timestamps in ISO 8601 UTC.
 */
const OUTPUT_FORMATS = ['table', 'json', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function formatOption(): Option {
  return new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS).default('table');
}

/** "90d", "2h", "30m", "45s" → seconds. */
export function parseDuration(value: string): number {
  const match = /^([0-9]{1,9})(s|m|h|d)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected a duration like 30m, 2h or 90d');
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** Records as a table, JSON array or CSV. */
export function printRecords(
  format: OutputFormat,
  records: readonly object[],
  columns?: readonly string[],
): void {
  process.stdout.write(renderRecords(format, records, columns));
}

/** What printRecords prints, as text. */
export function renderRecords(
  format: OutputFormat,
  records: readonly object[],
  columns?: readonly string[],
): string {
  const rows = records.map(plainRow);
  const names = (columns ?? Object.keys(records[0] ?? {})).map(camelCase);
  const kinds: Column[] = names.map((key) => ({
    key,
    label: key,
    kind: rows.every((row) => typeof row[key] === 'number' || row[key] === null)
      ? 'integer'
      : 'text',
  }));
  if (format === 'table' && names.length === 0) return '(none)\n';
  const picked = rows.map((row) => Object.fromEntries(names.map((key) => [key, row[key] ?? null])));
  return format === 'json'
    ? renderJson(picked)
    : format === 'csv'
      ? renderCsv(kinds, picked)
      : renderTable(kinds, picked);
}

/** A document of named parts (a record, its history, ...) as JSON, keys camelCase. */
export function renderJsonDocument(document: object): string {
  return `${JSON.stringify(jsonValue(document), null, 2)}\n`;
}

/** One result: its sentence for people, or the record as JSON or one CSV row. */
export function printResult(format: OutputFormat, record: object, sentence: () => string): void {
  if (format === 'table') process.stdout.write(sentence());
  else if (format === 'json')
    process.stdout.write(`${JSON.stringify(jsonValue(record), null, 2)}\n`);
  else printRecords(format, [record]);
}

/** Nested records in JSON keep their shape: camelCase keys, ISO 8601 UTC times. */
function jsonValue(value: unknown, key = ''): unknown {
  if (value instanceof Date || typeof value === 'bigint') return cellOf(key, value);
  if (Array.isArray(value)) return value.map((item) => jsonValue(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [camelCase(k), jsonValue(v, k)]),
    );
  }
  return typeof value === 'string' ? cellOf(key, value) : value;
}

/** A record's values as cells: numbers stay numbers, times become ISO 8601 UTC, the rest text. */
function plainRow(record: object): ReportRow {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [camelCase(key), cellOf(key, value)]),
  );
}

function cellOf(key: string, value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' && /(_at|At)$/.test(key) && !Number.isNaN(Date.parse(value))) {
    // Postgres prints `2026-11-24 03:00:00.123+00`: the same instant, in one notation.
    return new Date(value).toISOString();
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}
