import postgres from 'postgres';
import { connectPostgres } from './connect.js';

/**
 * The one Postgres client. Every statement runs on postgres.js's tagged template, prepared (one
 * round trip once a connection knows it), in its table owner's sql module (docs/architecture.md,
 * "Where statements live"); drizzle only describes the schema (schema.ts), makes the migrations
 * and types the rows (rows.ts). A statement a caller pipelines with others is sent when its
 * function is called (`.execute()`): postgres.js sends a query once it is awaited or executed,
 * and Postgres runs a connection's statements in the order sent. How values cross:
 * - bigint (int8) reads as a number, and refuses one past Number.MAX_SAFE_INTEGER: ids and
 *   centavos are integers in code, never floats and never rounded;
 * - json and jsonb parameters are JSON text the caller built (paymirror assembles its documents
 *   as text, some spliced from bodies as received) or any other value, serialised here; read
 *   back, they are parsed;
 * - timestamps read as Dates (postgres.js's own parser).
 */
const TYPES = {
  bigint: {
    to: 20,
    from: [20],
    serialize: (value: number | bigint) => String(value),
    parse: safeInteger,
  },
  json: {
    to: 114,
    from: [114, 3802],
    serialize: (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value)),
    parse: (text: string): unknown => JSON.parse(text),
  },
} satisfies Record<string, postgres.PostgresType>;

export type Sql = postgres.Sql;
/** A transaction's handle: its statements run on the transaction's connection, in order. */
export type Tx = postgres.TransactionSql;
/** A piece of a statement another module writes into its own (built with that module's tag). */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

class UnsafeIntegerError extends Error {
  override readonly name = 'UnsafeIntegerError';
  constructor(text: string) {
    super(`bigint ${text} is past Number.MAX_SAFE_INTEGER: not read as a number`);
  }
}

function safeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(text);
  return value;
}

export interface Database {
  readonly sql: Sql;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  readonly max?: number;
  /** Seconds to wait for a connection before the query fails (an outage must fail fast). */
  readonly connectTimeoutSeconds?: number;
  readonly applicationName?: string;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  const sql = connectPostgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    idle_timeout: 30,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'paymirror' },
    types: TYPES,
  }) as unknown as Sql;
  return { sql, close: () => sql.end({ timeout: 5 }) };
}

/** Runs `work` in a transaction, its statements on one connection in the order sent. */
export function transaction<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin(work) as Promise<T>;
}

/**
 * The transaction's statements sent after this are planned for the values they run with, at
 * every run (`plan_cache_mode = force_custom_plan`, until the transaction ends or
 * allowGenericPlans). Left to itself, Postgres may keep a prepared statement's generic plan from
 * its sixth run until the table's next ANALYZE: made while a new deployment's table was nearly
 * empty, a sequential scan, kept however much the table grows (docs/architecture.md, "Plans
 * that outlive a small table"). Sent without waiting for it: it shares the next round trip.
 */
export function forceCustomPlans(tx: Tx): Promise<unknown> {
  return tx`set local plan_cache_mode = force_custom_plan`.execute();
}

/**
 * The statements sent after this may keep a generic plan again: for those with no plan to
 * choose, replanning at every run is only a cost, and under force_custom_plan the foreign key
 * checks of an INSERT are planned again for every row.
 */
export function allowGenericPlans(tx: Tx): Promise<unknown> {
  return tx`set local plan_cache_mode = auto`.execute();
}
