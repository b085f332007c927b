import { Name, Param, Placeholder, SQL, StringChunk } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import type { Db, Sql, Tx } from './client.js';

/** A statement's text, `$1`-numbered, and its parameters. */
export interface CompiledQuery {
  readonly text: string;
  readonly params: unknown[];
}

export class UnsupportedSqlChunkError extends Error {
  override readonly name = 'UnsupportedSqlChunkError';
  constructor(chunk: unknown) {
    const kind =
      chunk !== null && typeof chunk === 'object' ? chunk.constructor.name : typeof chunk;
    super(
      `compileQuery takes text, identifiers, parameters and nested sql only; got a ${kind}: ` +
        'run this statement with drizzle',
    );
  }
}

export class NotPostgresJsError extends Error {
  override readonly name = 'NotPostgresJsError';
  constructor() {
    super('this drizzle handle does not run on postgres.js');
  }
}

/** drizzle's own quoting of names and numbering of parameters. */
const dialect = new PgDialect();

/**
 * The text and parameters drizzle's Postgres dialect would make of a `sql` template built from
 * text, `sql.raw`, `sql.identifier`, parameters and nested templates: what every statement on
 * the worker's path is made of. drizzle compiles each template through its general builder,
 * checking every chunk against a dozen kinds of entity by walking prototype chains; at 500
 * notifications a second, in batches of a few rows, that was 8 to 9 % of the worker's CPU
 * (bench/PERFORMANCE.md). Anything else (a column, a table, a placeholder, inlined parameters)
 * throws instead of being compiled differently.
 */
export function compileQuery(query: SQL): CompiledQuery {
  const params: unknown[] = [];
  return { text: appendChunks('', query, params), params };
}

function appendChunks(text: string, query: SQL, params: unknown[]): string {
  // Set by `.inlineParams()`, private in drizzle's types: drizzle would write the values in.
  if ((query as unknown as { shouldInlineParams: boolean }).shouldInlineParams)
    throw new UnsupportedSqlChunkError(query);
  for (const chunk of query.queryChunks as readonly unknown[]) {
    if (chunk instanceof StringChunk) text += chunk.value.join('');
    else if (chunk instanceof SQL) text = appendChunks(text, chunk, params);
    else if (chunk instanceof Name) text += dialect.escapeName(chunk.value);
    else if (chunk instanceof Param) text += parameter(driverValue(chunk), params);
    else if (chunk === undefined) continue;
    else if (isPlainValue(chunk)) text += parameter(chunk, params);
    else throw new UnsupportedSqlChunkError(chunk);
  }
  return text;
}

/** The value drizzle would send for a parameter: its encoder's, a placeholder refused. */
function driverValue(chunk: Param): unknown {
  if (chunk.value === null) return null;
  if (chunk.value instanceof Placeholder) throw new UnsupportedSqlChunkError(chunk.value);
  const value: unknown = chunk.encoder.mapToDriverValue(chunk.value);
  if (value instanceof SQL) throw new UnsupportedSqlChunkError(value);
  return value;
}

function parameter(value: unknown, params: unknown[]): string {
  return dialect.escapeParam(params.push(value) - 1);
}

function isPlainValue(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean'
  );
}

/**
 * The postgres.js client a drizzle handle runs on: the pool for a database, the transaction's
 * connection for a transaction (drizzle's own `execute` runs there too).
 */
function driverOf(handle: Db | Tx): Sql {
  const session: unknown = handle._.session;
  if (!(session instanceof PostgresJsSession)) throw new NotPostgresJsError();
  return session.client as Sql;
}

/**
 * Runs a `sql` template as drizzle's `execute` would (the same text, parameters and client, so
 * the same statement prepared or not), without drizzle's builder on the way.
 */
export async function executeQuery<Row extends object>(
  handle: Db | Tx,
  query: SQL,
): Promise<Row[]> {
  const { text, params } = compileQuery(query);
  return (await driverOf(handle).unsafe(text, params as never[])) as unknown as Row[];
}
