import type { Plan } from '../lib/plan.js';
import { FIRST_SALE_ID } from '../lib/postbacks.js';
import { peakRssMb, stopChild } from '../lib/processes.js';
import { startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, withSql, type ScenarioServices } from '../lib/services.js';
import { round } from '../lib/stats.js';
import { gcPauses, type GcPauses } from '../lib/gcPauses.js';
import {
  cpuBetween,
  snapshotCpu,
  startCpuSeconds,
  startFigures,
  type StartFigures,
} from '../lib/cpu.js';
import { NOTIFICATIONS_QUEUE } from '../../src/queue/catalog.js';
import { waitForEmptyQueue, waitUntilApplied } from './applied.js';
import { runLoad } from './throughput.js';

export interface WorkerSummary extends StartFigures {
  readonly jobs: number;
  /** Rows applied per second, from the first processed_at to the last. */
  readonly applied_per_s: number;
  /** From starting the worker process to the last row applied (start-up included). */
  readonly wall_s: number;
  readonly outcomes: Record<string, number>;
  /** CPU per applied row, in microseconds, from the worker's start to the last row. */
  readonly cpu_per_job: {
    worker_us: number;
    /** Of worker_us, its main thread's; the rest is GC and JIT on V8's helper threads. */
    worker_main_thread_us: number;
    postgres_us: number;
    redis_us: number;
    other_us: number;
  };
  readonly rss_mb: Record<string, number | null>;
  /** The worker process's GC pauses over its life (start and drain); null if not read. */
  readonly gc: GcPauses | null;
}

/**
 * Fills the inbox and the queue through the real ingress (no worker running), stops it, then
 * starts one worker process and times the drain.
 */
export async function measureWorker(
  plan: Plan,
  env: Record<string, string> = {},
  nodeFlags: readonly string[] = [],
): Promise<WorkerSummary> {
  const services = await createScenarioServices('worker', { migrate: true });
  let ingress: Server | null = null;
  let worker: Server | null = null;
  try {
    ingress = await startPaymirrorProcess('fill-ingress', 'ingress', services);
    const ingressRss = await fillInbox(plan, services, ingress);
    const started = Date.now();
    const before = await snapshotCpu([], services.databaseName);
    worker = await startPaymirrorProcess('worker', 'worker', services, env, nodeFlags);
    await waitForEmptyQueue(services, NOTIFICATIONS_QUEUE, 300_000);
    await waitUntilApplied(services.databaseUrl, 300_000);
    const wallSec = (Date.now() - started) / 1000;
    const cpu = cpuBetween(before, await snapshotCpu([worker.child.pid], services.databaseName));
    const workerRss = await peakRssMb(worker.child.pid);
    const gc = await gcPauses(worker.metricsUrl);
    await stopChild(worker.child);
    worker = null;
    // The queue is empty now: a second worker on it only starts. Without the node flags: a
    // profile it wrote would sit beside the drain's, and profileWorker reads one of them.
    const startSec = await startCpuSeconds(async () => {
      const idle = await startPaymirrorProcess('worker-start', 'worker', services, env);
      return idle.child;
    });
    const stats = await withSql(services.databaseUrl, async (sql) => {
      const [span] = await sql<{ seconds: string }[]>`
        select extract(epoch from max(processed_at) - min(processed_at)) as seconds
          from inbox_events`;
      const outcomes = await sql<{ outcome: string; count: string }[]>`
        select state || '/' || coalesce(outcome, '-') as outcome, count(*) as count
          from inbox_events group by 1 order by 1`;
      return { seconds: Number(span?.seconds ?? 0), outcomes };
    });
    const perJob = (seconds: number) => round((seconds / plan.workerJobs) * 1e6, 1);
    return {
      jobs: plan.workerJobs,
      applied_per_s: Math.round((plan.workerJobs - 1) / Math.max(stats.seconds, 1e-3)),
      wall_s: round(wallSec, 2),
      outcomes: Object.fromEntries(stats.outcomes.map((o) => [o.outcome, Number(o.count)])),
      cpu_per_job: {
        worker_us: perJob(cpu.server_s),
        worker_main_thread_us: perJob(cpu.server_main_thread_s),
        postgres_us: perJob(cpu.postgres_s),
        redis_us: perJob(cpu.redis_s),
        other_us: perJob(
          Math.max(0, cpu.machine_busy_s - cpu.server_s - cpu.postgres_s - cpu.redis_s),
        ),
      },
      ...startFigures(startSec, cpu.server_s, plan.workerJobs),
      rss_mb: { 'fill-ingress': ingressRss, worker: workerRss },
      gc,
    };
  } finally {
    if (ingress) await stopChild(ingress.child);
    if (worker) await stopChild(worker.child);
    await services.drop();
  }
}

/**
 * Fills the inbox and the lanes with `plan.workerJobs` signed postbacks through `ingress` (no
 * worker running), then stops it; returns its peak RSS.
 */
export async function fillInbox(
  plan: Plan,
  services: ScenarioServices,
  ingress: Server,
): Promise<number | null> {
  const fill = await runLoad('fill', {
    url: ingress.url,
    connections: plan.connections,
    durationSec: 120,
    idBase: FIRST_SALE_ID,
    amount: plan.workerJobs,
    generator: plan.generator,
  });
  const rss = await peakRssMb(ingress.child.pid);
  await stopChild(ingress.child);
  const pending = await countPending(services.databaseUrl);
  if (pending !== plan.workerJobs || fill.ok !== plan.workerJobs) {
    throw new Error(`fill stored ${pending} rows from ${fill.ok} answers, not ${plan.workerJobs}`);
  }
  return rss;
}

async function countPending(databaseUrl: string): Promise<number> {
  return withSql(databaseUrl, async (sql) => {
    const [row] = await sql<{ count: string }[]>`
      select count(*) as count from inbox_events where state = 'pending'`;
    return Number(row?.count ?? 0);
  });
}
