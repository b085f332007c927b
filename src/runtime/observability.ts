import type { Sql } from '../db/client.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PassSummary } from '../reconciler/reconcilePass.js';
import type { Queue } from 'bullmq';

export async function oldestPendingAgeSeconds(sql: Sql): Promise<number> {
  const [row] = await sql<{ age: number | null }[]>`
    select extract(epoch from now() - min(received_at))::float8 as age
      from inbox_events where state = 'pending'`;
  return Math.max(0, row?.age ?? 0);
}

export function observePass(metrics: Metrics, summary: PassSummary): void {
  metrics.reconcileRuns.inc({ status: summary.status });
  metrics.reconcileRows.inc({ result: 'unchanged' }, summary.unchanged);
  metrics.reconcileRows.inc({ result: 'inserted' }, summary.inserted);
  metrics.reconcileRows.inc({ result: 'corrected' }, summary.corrected);
  metrics.reconcileRows.inc({ result: 'not_found' }, summary.notFound);
  metrics.reconcileRows.inc({ result: 'error' }, summary.errors);
  metrics.reconcileDiscrepancies.inc(summary.discrepancies);
}

export async function inboxCountsByState(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ state: string; n: number }[]>`
    select state, count(*)::int as n from inbox_events
     where state in ('pending', 'quarantined', 'failed') group by state`;
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** Jobs per queue (the lanes and the transition feed), by state. */
export async function queueCountsByName(
  queues: readonly Queue[],
): Promise<Record<string, Record<string, number>>> {
  const counts = await Promise.all(
    queues.map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'failed')),
  );
  return Object.fromEntries(queues.map((queue, index) => [queue.name, counts[index] ?? {}]));
}

/** How long the oldest waiting job of each queue has waited, in seconds. */
export async function queueOldestAgeByName(
  queues: readonly Queue[],
): Promise<Record<string, number>> {
  const now = Date.now();
  const ages = await Promise.all(
    queues.map(async (queue) => {
      const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
      return oldest ? Math.max(0, (now - oldest.timestamp) / 1000) : 0;
    }),
  );
  return Object.fromEntries(queues.map((queue, index) => [queue.name, ages[index] ?? 0]));
}
