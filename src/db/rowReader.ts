import { getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * Columns read by a hand-written statement and decoded as drizzle decodes them (its
 * mapFromDriverValue: timestamps to Dates, bigints to numbers, json parsed), with the select
 * list built once. drizzle's select builder rebuilds a statement's text at every call: with
 * the worker's batches of one or two rows at 500 notifications a second, building its three
 * locking reads was about 5 % of the worker's CPU (bench/PERFORMANCE.md).
 */
export class RowReader<Row> {
  /** `"id", "status", …`: the select list. */
  readonly columns: SQL;
  private readonly decoders: readonly (readonly [key: string, name: string, column: Column])[];

  constructor(fields: Record<string, Column>) {
    this.decoders = Object.entries(fields).map(([key, column]) => [key, column.name, column]);
    this.columns = sql.raw(this.decoders.map(([, name]) => `"${name}"`).join(', '));
  }

  static of<T extends PgTable>(table: T): RowReader<T['$inferSelect']> {
    return new RowReader(getTableColumns(table));
  }

  decode(raw: Record<string, unknown>): Row {
    const row: Record<string, unknown> = {};
    for (const [key, name, column] of this.decoders) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as Row;
  }
}
