import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Fragment, Sql, Tx } from './client.js';
import { InvariantError } from '../lib/invariantError.js';

/**
 * Statements over many rows of a table, written from the table's drizzle description: one
 * statement whatever the number of rows, its values as JSON documents, its identifiers quoted
 * by postgres.js (`sql(name)`). Callers give rows by the table's TypeScript field names.
 *
 * The parts of a statement that depend only on the table and the columns named (its column
 * lists, casts, assignments) are built once and kept: the worker writes the same few shapes for
 * every batch, and a fragment is an object postgres.js walks, not text to rebuild.
 */

/** "The transaction's now()", for a column a write sets to the database's clock. */
export const TX_NOW = Symbol('now()');
export type TxNow = typeof TX_NOW;

/** Column values by the table's TypeScript field names; TX_NOW for now(). */
export type FieldValues = Record<string, unknown>;

/** A column as these statements name it, and the type its JSON text is read back as. */
interface Column {
  readonly field: string;
  readonly name: string;
  /** Postgres's own name of the type (`int8`, `timestamptz`): quoted, it is an identifier. */
  readonly typeName: string;
  readonly json: boolean;
}

interface TableShape {
  readonly name: string;
  readonly columns: readonly Column[];
  /** `"payment_method" as "paymentMethod", …`, once built. */
  select?: Fragment;
  /** Statement parts by the names of the columns a statement writes. */
  readonly inserts: Map<string, InsertParts>;
  readonly updates: Map<string, Fragment>;
}

interface InsertParts {
  /** `"id", "status", …` */
  readonly names: Fragment;
  /** `r."id"::"int8", …` */
  readonly values: Fragment;
}

const shapes = new WeakMap<PgTable, TableShape>();

function shapeOf(table: PgTable): TableShape {
  let shape = shapes.get(table);
  if (!shape) {
    const columns = Object.entries(getTableColumns(table)).map(([field, column]) => {
      const typeName = TYPE_NAMES[column.getSQLType()];
      if (typeName === undefined) {
        throw new InvariantError(
          `${column.name}: no Postgres type name for ${column.getSQLType()}`,
        );
      }
      return {
        field,
        name: column.name,
        typeName,
        json: typeName === 'json' || typeName === 'jsonb',
      };
    });
    shape = { name: getTableName(table), columns, inserts: new Map(), updates: new Map() };
    shapes.set(table, shape);
  }
  return shape;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  smallint: 'int2',
  integer: 'int4',
  serial: 'int4',
  bigint: 'int8',
  bigserial: 'int8',
  text: 'text',
  boolean: 'bool',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytea',
  'timestamp with time zone': 'timestamptz',
};

/** `a, b, c`: postgres.js joins a list of fragments with spaces only. */
function commaList(sql: Sql | Tx, parts: readonly Fragment[]): Fragment {
  return sql`${parts.map((part, index) => (index === 0 ? part : sql`, ${part}`))}`;
}

/** `"payment_method" as "paymentMethod", …`: every column, read back under its field name. */
export function selectFields(sql: Sql | Tx, table: PgTable): Fragment {
  const shape = shapeOf(table);
  shape.select ??= commaList(
    sql,
    shape.columns.map((column) => sql`${sql(column.name)} as ${sql(column.field)}`),
  );
  return shape.select;
}

/** A table's TypeScript field names, in the table's order. */
export function fieldsOf(table: PgTable): readonly string[] {
  return shapeOf(table).columns.map((column) => column.field);
}

/** The columns at least one row gives a value, in the table's order (fewer statement texts). */
function namedColumns(shape: TableShape, rows: readonly FieldValues[]): Column[] {
  return shape.columns.filter((column) => rows.some((row) => row[column.field] !== undefined));
}

/**
 * 'now' is Postgres's input for the transaction's start time, the same as now(). A Date is
 * written as JSON.stringify would (its toJSON: ISO text, null when invalid), but here: left to
 * JSON.stringify, dates take it off its fast path.
 */
function jsonValue(value: unknown): unknown {
  if (value === TX_NOW) return 'now';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}

function insertParts(sql: Tx, shape: TableShape, columns: readonly Column[]): InsertParts {
  const key = columns.map((column) => column.name).join(',');
  let parts = shape.inserts.get(key);
  if (!parts) {
    parts = {
      names: commaList(
        sql,
        columns.map((column) => sql`${sql(column.name)}`),
      ),
      // Text cast to the column's type; a json column's element itself, a json null being NULL.
      values: commaList(
        sql,
        columns.map((column) => {
          const value = sql`r.${sql(column.name)}`;
          return column.json
            ? sql`(case when json_typeof(${value}) = 'null' then null else ${value} end)::${sql(column.typeName)}`
            : sql`${value}::${sql(column.typeName)}`;
        }),
      ),
    };
    shape.inserts.set(key, parts);
  }
  return parts;
}

/**
 * A multi-row INSERT; returns the ids inserted when asked (tables with an `id`). Each column
 * travels as one json array of its values and `rows from` zips the arrays back into rows: no
 * column name repeated in every row, and Postgres fills only the columns named (rows as json
 * objects, json_populate_recordset, cost both sides more: the names were a quarter of a sale's
 * document, and Postgres filled every column of the table's row type for each row). A column a
 * row does not name is null in that row; one no row names takes its default.
 */
export async function insertRows(
  tx: Tx,
  table: PgTable,
  rows: readonly FieldValues[],
  options: { readonly returningIds?: boolean; readonly skipConflicts?: boolean } = {},
): Promise<number[]> {
  if (rows.length === 0) return [];
  const shape = shapeOf(table);
  const columns = namedColumns(shape, rows);
  const parts = insertParts(tx, shape, columns);
  const arrays = columns.map((column, index) => {
    const values = JSON.stringify(rows.map((row) => jsonValue(row[column.field]) ?? null));
    if (column.json) {
      return index === 0
        ? tx`json_array_elements(${values}::json)`
        : tx`, json_array_elements(${values}::json)`;
    }
    return index === 0
      ? tx`json_array_elements_text(${values}::json)`
      : tx`, json_array_elements_text(${values}::json)`;
  });
  const inserted = await tx<{ id: number }[]>`
    insert into ${tx(shape.name)} (${parts.names})
    select ${parts.values}
      from rows from (${arrays}) as r(${parts.names})
    ${options.skipConflicts ? tx`on conflict do nothing` : tx``}
    ${options.returningIds ? tx`returning id` : tx``}`.execute();
  return options.returningIds ? inserted.map((row) => row.id) : [];
}

/**
 * One UPDATE for many rows, each keyed by `id`: a column takes a row's value only when that row
 * names it, so rows changing different columns share the statement. Sets updated_at. The rows
 * are one json document (json_populate_record reads each as the table's row type); the ids
 * travel beside it, so that the plan looks each one up by the primary key.
 */
export async function updateRowsById(
  tx: Tx,
  table: PgTable,
  rows: readonly FieldValues[],
): Promise<void> {
  if (rows.length === 0) return;
  const shape = shapeOf(table);
  const columns = namedColumns(shape, rows).filter(
    (column) => column.name !== 'id' && column.name !== 'updated_at',
  );
  const docs = rows.map((row) => {
    const doc: Record<string, unknown> = { id: row.id };
    for (const column of columns) {
      const value = row[column.field];
      if (value !== undefined) doc[column.name] = jsonValue(value);
    }
    return doc;
  });
  await tx`
    update ${tx(shape.name)} as t
       set ${assignments(tx, shape, columns)}
      from json_array_elements(${JSON.stringify(docs)}::json) as v(doc),
           json_populate_record(null::${tx(shape.name)}, v.doc) as r
     where t.id = r.id and t.id = any(${rows.map((row) => row.id as number)}::int8[])`.execute();
}

/** `"status" = case when the row names it then its value else the column's own end, …` */
function assignments(sql: Tx, shape: TableShape, columns: readonly Column[]): Fragment {
  const key = columns.map((column) => column.name).join(',');
  let set = shape.updates.get(key);
  if (!set) {
    set = commaList(sql, [
      ...columns.map((column) => {
        const target = sql(column.name);
        // A key given as null is json 'null' here, not SQL NULL: it sets the column to null.
        return sql`${target} = case when v.doc -> ${column.name}::text is not null then r.${target} else t.${target} end`;
      }),
      sql`updated_at = now()`,
    ]);
    shape.updates.set(key, set);
  }
  return set;
}
