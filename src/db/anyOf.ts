import { sql, type SQL, type AnyColumn } from 'drizzle-orm';

/**
 * `column = any($1::bigint[])`: one parameter however many ids, so the statement's text is the
 * same for every batch size. drizzle's `inArray` writes `in ($1, …, $n)`, a new statement for
 * each n, which postgres.js prepares (and Postgres parses and plans) again.
 */
export function idIn(column: AnyColumn, ids: readonly number[]): SQL {
  return sql`${column} = any(${bigintArrayParam(ids)})`;
}

/** `$1::bigint[]`: the ids as one parameter. */
export function bigintArrayParam(ids: readonly number[]): SQL {
  return sql`${sql.param([...ids])}::bigint[]`;
}
