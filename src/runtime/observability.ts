import type { Sql } from '../db/client.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PassSummary } from '../reconciler/reconcilePass.js';

export async function oldestPendingAgeSeconds(sql: Sql): Promise<number> {
  const [row] = await sql<{ age: number | null }[]>`
    select extract(epoch from now() - min(received_at))::float8 as age
      from inbox_events where state = 'pending'`;
  return Math.max(0, row?.age ?? 0);
}

export function observePass(metrics: Metrics, summary: PassSummary): void {
  metrics.reconcileRuns.inc({ status: summary.status });
  metrics.reconcileRows.inc({ result: 'unchanged' }, summary.unchanged);
  metrics.reconcileRows.inc({ result: 'corrected' }, summary.corrected);
  metrics.reconcileRows.inc({ result: 'not_found' }, summary.notFound);
  metrics.reconcileRows.inc({ result: 'error' }, summary.errors);
  metrics.reconcileDiscrepancies.inc(summary.discrepancies);
}

export async function inboxCountsByState(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ state: string; n: number }[]>`
    select state, count(*)::int as n from inbox_events where state <> 'processed' group by state`;
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}
