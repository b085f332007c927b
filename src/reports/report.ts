import type { Sql } from '../db/client.js';
import { rowFromPostgres, type Column, type ReportRow } from './columns.js';
import type { DayRange } from './dayRange.js';

/** One finance report: the view it reads, its columns, and its query. */
export interface ReportDefinition {
  readonly name: string;
  readonly view: string;
  readonly columns: readonly Column[];
  /** Rows with at least the columns' keys, filtered on the report's day and ordered. */
  query(sql: Sql, range: DayRange): Promise<readonly Readonly<Record<string, unknown>>[]>;
}

export async function runReport(
  sql: Sql,
  report: ReportDefinition,
  range: DayRange,
): Promise<ReportRow[]> {
  const raw = await report.query(sql, range);
  return raw.map((row) => rowFromPostgres(report.columns, row));
}
