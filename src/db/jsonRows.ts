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
 * The rows of a multi-row UPDATE as one json document, a json object a row, unpacked by
 * json_populate_record: one statement whatever the number of rows, and no per-value work in
 * the query builder (which cost more CPU than Postgres did for these statements). `json`, not
 * `jsonb`: the document is read once and thrown away, and building jsonb's binary form first
 * cost Postgres about a tenth more for the whole statement (measured on the items' INSERT when
 * it took the same document: 40.0–41.7 against 36.7–38.3 µs of backend CPU a sale).
 */
function documents(
  table: PgTable,
  rows: readonly FieldValues[],
): {
  json: string;
  named: string[];
} {
  const named = namedColumns(table, rows);
  const docs = rows.map((row) => {
    const doc: Record<string, unknown> = {};
    for (const [field, column] of named) {
      const value = row[field];
      if (value !== undefined) doc[column.name] = jsonValue(value);
    }
    return doc;
  });
  return { json: JSON.stringify(docs), named: [...named.values()].map((column) => column.name) };
}

/** The table's columns that at least one row gives a value, by field name, in first-seen order. */
function namedColumns(table: PgTable, rows: readonly FieldValues[]): Map<string, Column> {
  const known = columnsOf(table);
  const named = new Map<string, Column>();
  for (const row of rows) {
    for (const key in row) {
      if (named.has(key) || row[key] === undefined) continue;
      const column = known.get(key);
      if (column !== undefined) named.set(key, column);
    }
  }
  return named;
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

const list = (names: readonly string[], prefix = ''): SQL =>
  sql.raw(names.map((name) => `${prefix}"${name}"`).join(', '));

/** A column as the multi-row writes name it, and the type its text is cast to. */
interface Column {
  readonly name: string;
  readonly sqlType: string;
  readonly json: boolean;
}

const columnsByTable = new WeakMap<PgTable, ReadonlyMap<string, Column>>();

/** A table's columns by field name, built once (a serial casts to its integer type). */
function columnsOf(table: PgTable): ReadonlyMap<string, Column> {
  let columns = columnsByTable.get(table);
  if (!columns) {
    columns = new Map(
      Object.entries(getTableColumns(table)).map(([key, column]) => {
        const sqlType = castType(column.getSQLType());
        return [
          key,
          { name: column.name, sqlType, json: sqlType === 'json' || sqlType === 'jsonb' },
        ];
      }),
    );
    columnsByTable.set(table, columns);
  }
  return columns;
}

function castType(sqlType: string): string {
  return SERIAL_TYPES[sqlType] ?? sqlType;
}

const SERIAL_TYPES: Readonly<Record<string, string>> = {
  smallserial: 'smallint',
  serial: 'integer',
  bigserial: 'bigint',
};

/**
 * One column's json array as rows (`rows from` zips them), and the expression that reads a
 * value back: text cast to the column's type; for a json column the element itself, a json null
 * being SQL NULL (as json_populate_record reads it).
 */
function columnRows(values: string, column: Column): SQL {
  return column.json
    ? sql`json_array_elements(${values}::json)`
    : sql`json_array_elements_text(${values}::json)`;
}

function columnValue(alias: SQL, column: Column): SQL {
  const type = sql.raw(column.sqlType);
  return column.json
    ? sql`(case when json_typeof(${alias}) = 'null' then null else ${alias} end)::${type}`
    : sql`${alias}::${type}`;
}

/**
 * A multi-row INSERT; returns the ids inserted when asked (tables with an `id`). Each column
 * travels as one json array of its values, and `rows from` zips the arrays back into rows: one
 * statement whatever the number of rows, no per-value work in the query builder, and no
 * column name repeated in every row. Rows as json objects (json_populate_recordset) cost more
 * on both sides: the names were a quarter of a sale's document and nearly half an item's, and
 * Postgres looked every name up and filled every column of the table's row type for each row
 * (268 sales: 5.1–5.9 ms a statement against 3.6–3.9; bench/PERFORMANCE.md, session 27). A
 * column a row does not name is null in that row, as json_populate_recordset made it.
 */
export async function insertRows(
  tx: Tx,
  table: PgTable,
  rows: readonly FieldValues[],
  options: { readonly returningIds?: boolean; readonly skipConflicts?: boolean } = {},
): Promise<number[]> {
  if (rows.length === 0) return [];
  const named = namedColumns(table, rows);
  const columns = [...named.values()];
  const aliases = columns.map((column) => sql.identifier(column.name));
  const arrays = [...named].map(([field, column]) =>
    columnRows(JSON.stringify(rows.map((row) => jsonValue(row[field]) ?? null)), column),
  );
  const name = sql.identifier(getTableName(table));
  const inserted = await executeQuery<{ id: string }>(
    tx,
    sql`
    insert into ${name} (${list(columns.map((column) => column.name))})
    select ${sql.join(
      columns.map((column, index) => columnValue(sql`r.${aliases[index]}`, column)),
      sql`, `,
    )}
      from rows from (${sql.join(arrays, sql`, `)}) as r(${sql.join(aliases, sql`, `)})
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
