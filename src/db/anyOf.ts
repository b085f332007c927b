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

export class NotAnIdError extends Error {
  override readonly name = 'NotAnIdError';
  constructor(value: unknown) {
    super(`${String(value)} is not an integer id`);
  }
}

/**
 * `'{1,2,3}'::bigint[]`: the ids written into the statement's text, for a statement that must
 * be planned against its tables as they are when it runs. postgres.js sends a statement
 * without parameters by the simple query protocol, unprepared, and Postgres plans it each
 * time. A prepared statement keeps the plan of its sixth run: for a table nearly empty then, a
 * sequential scan, kept however much the table grows until the next ANALYZE.
 */
export function bigintArrayLiteral(ids: readonly number[]): SQL {
  for (const id of ids) if (!Number.isSafeInteger(id)) throw new NotAnIdError(id);
  return sql.raw(`'{${ids.join(',')}}'::bigint[]`);
}
