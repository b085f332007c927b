import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import type { Sql } from './client.js';
import * as schema from './schema.js';

/** Every table of paymirror's schema. */
const TABLES: readonly string[] = Object.values(schema as Record<string, unknown>).flatMap(
  (value) => (is(value, PgTable) ? [getTableName(value)] : []),
);

/** Empties every table of the schema (the demo starts from an empty mirror and inbox). */
export async function emptyAllTables(sql: Sql): Promise<void> {
  await sql`truncate table ${sql([...TABLES])} restart identity cascade`;
}
