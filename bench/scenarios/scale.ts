import type { Plan } from '../lib/plan.js';
import { FIRST_SALE_ID } from '../lib/postbacks.js';
import { stopChild } from '../lib/processes.js';
import { startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, withSql } from '../lib/services.js';
import { round } from '../lib/stats.js';
import { waitUntilApplied } from './applied.js';
import { runLoad } from './throughput.js';
import { fillInbox } from './worker.js';

/** Throughput with `processes` processes of one role: the scaling curve, measured. */
interface ScalePoint {
  readonly processes: number;
  readonly per_s: number;
  readonly per_process_per_s: number;
  /** per_s over the one-process figure of the same run. */
  readonly speedup: number;
}

export interface ScaleSummary {
  readonly cores: number;
  /** Worker processes draining the same pre-filled inbox: rows applied per second. */
  readonly workers: readonly ScalePoint[] | null;
  /** Ingress processes sharing the same load (connections split evenly): accepted per second. */
  readonly ingresses: readonly ScalePoint[] | null;
}

export async function measureScale(
  plan: Plan,
  counts: { workers: number | null; ingresses: number | null },
  cores: number,
): Promise<ScaleSummary> {
  const workers = counts.workers === null ? null : ([] as number[]);
  for (let n = 1; workers && n <= (counts.workers ?? 0); n++) {
    workers.push(await drainWithWorkers(plan, n));
  }
  const ingresses = counts.ingresses === null ? null : ([] as number[]);
  for (let n = 1; ingresses && n <= (counts.ingresses ?? 0); n++) {
    ingresses.push(await acceptWithIngresses(plan, n));
  }
  return { cores, workers: workers && curve(workers), ingresses: ingresses && curve(ingresses) };
}

function curve(perSecond: readonly number[]): ScalePoint[] {
  const one = perSecond[0] ?? 0;
  return perSecond.map((per_s, index) => ({
    processes: index + 1,
    per_s,
    per_process_per_s: Math.round(per_s / (index + 1)),
    speedup: one > 0 ? round(per_s / one, 2) : 0,
  }));
}

async function drainWithWorkers(plan: Plan, count: number): Promise<number> {
  const services = await createScenarioServices(`scale_w${count}`, { migrate: true });
  const workers: Server[] = [];
  try {
    await fillInbox(
      plan,
      services,
      await startPaymirrorProcess('fill-ingress', 'ingress', services),
    );
    workers.push(
      ...(await Promise.all(
        Array.from({ length: count }, (_, i) =>
          startPaymirrorProcess(`worker-${i + 1}`, 'worker', services),
        ),
      )),
    );
    await waitUntilApplied(services.databaseUrl, 600_000);
    const seconds = await withSql(services.databaseUrl, async (sql) => {
      const [span] = await sql<{ seconds: string }[]>`
        select extract(epoch from max(processed_at) - min(processed_at)) as seconds
          from inbox_events`;
      return Number(span?.seconds ?? 0);
    });
    return Math.round((plan.workerJobs - 1) / Math.max(seconds, 1e-3));
  } finally {
    await Promise.all(workers.map((worker) => stopChild(worker.child)));
    await services.drop();
  }
}

async function acceptWithIngresses(plan: Plan, count: number): Promise<number> {
  const services = await createScenarioServices(`scale_i${count}`, { migrate: true });
  const ingresses: Server[] = [];
  try {
    ingresses.push(
      ...(await Promise.all(
        Array.from({ length: count }, (_, i) =>
          startPaymirrorProcess(`ingress-${i + 1}`, 'ingress', services),
        ),
      )),
    );
    const connections = Math.max(1, Math.floor(plan.connections / count));
    const loads = await Promise.all(
      ingresses.map((ingress, i) =>
        runLoad(`scale-ingress-${i + 1}`, {
          url: ingress.url,
          connections,
          durationSec: plan.runSec,
          // Ids far apart: no load repeats another's sale (it would be a duplicate).
          idBase: FIRST_SALE_ID + i * 10_000_000,
          generator: plan.generator,
        }),
      ),
    );
    return Math.round(loads.reduce((sum, load) => sum + load.ok / load.durationSec, 0));
  } finally {
    await Promise.all(ingresses.map((ingress) => stopChild(ingress.child)));
    await services.drop();
  }
}
