import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from './client.js';
import { bigintArrayLiteral, jsonLiteral } from './literals.js';
import { executeQuery } from './driverQuery.js';

/** "The transaction's now()", for a column a write sets to the database's clock. */
export const TX_NOW = Symbol('now()');
export type TxNow = typeof TX_NOW;

/** Column values by the table's TypeScript field names; TX_NOW for now(). */
export type FieldValues = Record<string, unknown>;

/**
 * Multi-row writes that travel as one json document and are unpacked by
 * json_populate_recordset into the table's own row type: one statement whatever the number of
 * rows, and no per-value work in the query builder (which cost more CPU than Postgres did for
 * these statements). `json`, not `jsonb`: the document is read once and thrown away, and
 * building jsonb's binary form first cost Postgres about a tenth more for the whole statement
 * (the items of 150 sales: 40.0–41.7 against 36.7–38.3 µs of backend CPU a sale).
 */
function documents(
  table: PgTable,
  rows: readonly FieldValues[],
): {
  json: string;
  named: string[];
} {
  const names = columnNamesOf(table);
  const named = new Set<string>();
  const docs = rows.map((row) => {
    const doc: Record<string, unknown> = {};
    for (const key in row) {
      const name = names.get(key);
      const value = row[key];
      if (name === undefined || value === undefined) continue;
      named.add(name);
      doc[name] = jsonValue(value);
    }
    return doc;
  });
  return { json: JSON.stringify(docs), named: [...named] };
}

/**
 * 'now' is Postgres's input for the transaction's start time, the same as now(). A Date is
 * written as JSON.stringify would (its toJSON: ISO text, null when invalid), but here: left to
 * JSON.stringify, dates take it off its fast path, and a sales row cost three times as much.
 */
function jsonValue(value: unknown): unknown {
  if (value === TX_NOW) return 'now';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}

const columnNamesByTable = new WeakMap<PgTable, ReadonlyMap<string, string>>();

/** A table's column names by field name, built once. */
function columnNamesOf(table: PgTable): ReadonlyMap<string, string> {
  let names = columnNamesByTable.get(table);
  if (!names) {
    names = new Map(Object.entries(getTableColumns(table)).map(([key, c]) => [key, c.name]));
    columnNamesByTable.set(table, names);
  }
  return names;
}

const list = (names: readonly string[], prefix = ''): SQL =>
  sql.raw(names.map((name) => `${prefix}"${name}"`).join(', '));

/** A multi-row INSERT; returns the ids inserted when asked (tables with an `id`). */
export async function insertRows(
  tx: Tx,
  table: PgTable,
  rows: readonly FieldValues[],
  options: { readonly returningIds?: boolean; readonly skipConflicts?: boolean } = {},
): Promise<number[]> {
  if (rows.length === 0) return [];
  const { json, named } = documents(table, rows);
  const name = sql.identifier(getTableName(table));
  const inserted = await executeQuery<{ id: string }>(
    tx,
    sql`
    insert into ${name} (${list(named)})
    select ${list(named, 'r.')} from json_populate_recordset(null::${name}, ${json}::json) as r
    ${options.skipConflicts ? sql`on conflict do nothing` : sql``}
    ${options.returningIds ? sql`returning id` : sql``}`,
  );
  return options.returningIds ? inserted.map((row) => Number(row.id)) : [];
}

/**
 * One UPDATE for many rows, each keyed by `id`: a column takes a row's value only when that
 * row names it, so rows changing different columns share the statement. Sets updated_at.
 * Without parameters, planned at each run: a prepared plan made while the table was small
 * joined the rows by scanning it whole, and kept doing so as it grew (docs/architecture.md,
 * "Plans that outlive a small table").
 */
export async function updateRowsById(
  tx: Tx,
  table: PgTable,
  rows: readonly FieldValues[],
): Promise<void> {
  if (rows.length === 0) return;
  const { json, named } = documents(table, rows);
  const name = sql.identifier(getTableName(table));
  const assignments = named
    .filter((column) => column !== 'id' && column !== 'updated_at')
    .map((column) => {
      const target = sql.identifier(column);
      const key = sql.raw(`'${column}'`);
      // A key given as null is json 'null' here, not SQL NULL: it sets the column to null.
      return sql`${target} = case when v.doc -> ${key} is not null then r.${target} else t.${target} end`;
    });
  await executeQuery(
    tx,
    sql`
    update ${name} as t
       set ${sql.join([...assignments, sql`updated_at = now()`], sql`, `)}
      from json_array_elements(${jsonLiteral(json)}) as v(doc),
           json_populate_record(null::${name}, v.doc) as r
     where t.id = r.id and t.id = any(${bigintArrayLiteral(rows.map((row) => row.id as number))})`,
  );
}
