import { InvariantError } from '../lib/invariantError.js';
import type { Sql } from './client.js';

/**
 * The database's clock. Delivery receipts are stamped by Postgres, so a time compared with them
 * (a gateway read's start) is taken here too: two hosts' clocks are never compared.
 */
export async function databaseNow(sql: Sql): Promise<Date> {
  const [row] = await sql<{ now: Date }[]>`select clock_timestamp() as now`.execute();
  if (!row) throw new InvariantError('select clock_timestamp() returned no row');
  return row.now;
}
