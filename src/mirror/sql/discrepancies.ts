import type { Sql, Tx } from '../../db/client.js';
import { insertRows } from '../../db/jsonRows.js';
import type { DiscrepancyInsert } from '../../db/rows.js';
import { reconciliationDiscrepancies } from '../../db/schema.js';

/** The statements on `reconciliation_discrepancies`. */

export async function insertDiscrepancies(
  tx: Tx,
  rows: readonly DiscrepancyInsert[],
): Promise<void> {
  await insertRows(tx, reconciliationDiscrepancies, rows);
}

/** How many discrepancies these reconciliation runs recorded. */
export async function discrepancyCount(sql: Sql, runIds: readonly number[]): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from reconciliation_discrepancies
     where run_id = any(${[...runIds]}::int8[])`.execute();
  return row?.count ?? 0;
}
