/**
 * A report's columns and the conversion of what the `postgres` driver returns into plain
 * cells: bigint arrives as a string and becomes a number only when it is a safe integer.
 */

/**
 * text: as stored; day: YYYY-MM-DD (a São Paulo calendar day); timestamp: ISO 8601 in UTC;
 * integer: a count or an id; cents: integer centavos; duration: whole seconds from Postgres,
 * an ISO 8601 duration (P3DT4H5M6S) out.
 */
type ColumnKind = 'text' | 'day' | 'timestamp' | 'integer' | 'cents' | 'duration';

export interface Column {
  /** The name in csv headers and json keys (the view's column name). */
  readonly key: string;
  /** The header in table output. */
  readonly label: string;
  readonly kind: ColumnKind;
  /** What a table shows for null (unknown): `-` unless said otherwise. */
  readonly absent?: string;
}

/** A converted value: numbers for integer and cents, strings otherwise; null when unknown. */
export type Cell = string | number | null;
export type ReportRow = Readonly<Record<string, Cell>>;

export class ReportValueError extends Error {
  override readonly name = 'ReportValueError';
}

const INTEGER = /^-?[0-9]+$/;

/** A Postgres integer (a string for bigint, a number for integer) → a safe JS integer. */
export function integerFromPostgres(value: unknown, column: string): number {
  const parsed =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && INTEGER.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw new ReportValueError(
      `column ${column}: ${JSON.stringify(String(value))} is not a safe integer`,
    );
  }
  return parsed;
}

function timestampFromPostgres(value: unknown, column: string): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) {
    throw new ReportValueError(`column ${column}: ${JSON.stringify(String(value))} is not a time`);
  }
  return date.toISOString();
}

function cellFromPostgres(column: Column, value: unknown): Cell {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'text':
    case 'day':
      return String(value);
    case 'timestamp':
      return timestampFromPostgres(value, column.key);
    case 'integer':
    case 'cents':
      return integerFromPostgres(value, column.key);
    case 'duration':
      return isoDuration(integerFromPostgres(value, column.key));
  }
}

/** Keeps exactly the report's columns, in order, converted. */
export function rowFromPostgres(
  columns: readonly Column[],
  raw: Readonly<Record<string, unknown>>,
): ReportRow {
  return Object.fromEntries(
    columns.map((column) => [column.key, cellFromPostgres(column, raw[column.key])]),
  );
}

/** 273906 seconds → "P3DT4H5M6S"; 0 → "PT0S". Days are 24 hours (no calendar months). */
export function isoDuration(totalSeconds: number): string {
  const sign = totalSeconds < 0 ? '-' : '';
  let rest = Math.abs(totalSeconds);
  const days = Math.floor(rest / 86_400);
  rest -= days * 86_400;
  const hours = Math.floor(rest / 3_600);
  rest -= hours * 3_600;
  const minutes = Math.floor(rest / 60);
  const seconds = rest - minutes * 60;
  const time =
    (hours ? `${hours}H` : '') + (minutes ? `${minutes}M` : '') + (seconds ? `${seconds}S` : '');
  if (!days && !time) return 'PT0S';
  return `${sign}P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}
