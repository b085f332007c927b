import type { Metrics } from '../metrics/metrics.js';
import type { PassSummary } from '../reconciler/reconcilePass.js';
import type { Queue } from 'bullmq';
import type { QueueDepth } from '../console/pageContext.js';

export function observePass(metrics: Metrics, summary: PassSummary): void {
  metrics.reconcileRuns.inc({ status: summary.status });
  metrics.reconcileRows.inc({ result: 'unchanged' }, summary.unchanged);
  metrics.reconcileRows.inc({ result: 'inserted' }, summary.inserted);
  metrics.reconcileRows.inc({ result: 'corrected' }, summary.corrected);
  metrics.reconcileRows.inc({ result: 'not_found' }, summary.notFound);
  metrics.reconcileRows.inc({ result: 'error' }, summary.errors);
  metrics.reconcileDiscrepancies.inc(summary.discrepancies);
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

/** Each queue's jobs by state and its oldest waiting job's age, as the console shows them. */
export async function queueDepths(queues: readonly Queue[]): Promise<QueueDepth[]> {
  const [counts, ages] = await Promise.all([
    queueCountsByName(queues),
    queueOldestAgeByName(queues),
  ]);
  return queues.map((queue) => ({
    name: queue.name,
    counts: counts[queue.name] ?? {},
    oldestWaitingSeconds: ages[queue.name] ?? 0,
  }));
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
