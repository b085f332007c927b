import type postgres from 'postgres';
import { connectPostgres } from './connect.js';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { preparingClient } from './preparingClient.js';
import * as schema from './schema.js';

export type Sql = postgres.Sql;
export type Db = PostgresJsDatabase<typeof schema>;
/** A transaction handle of `Db`; mirror writes take one so callers choose the boundary. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  readonly sql: Sql;
  readonly db: Db;
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
  });
  const db = drizzle(preparingClient(sql), { schema });
  return {
    sql,
    db,
    close: () => sql.end({ timeout: 5 }),
  };
}
