import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { DEFAULT_WORKER_CONCURRENCY } from '../../src/config/config.js';
import type { Plan } from '../lib/plan.js';
import { FIRST_SALE_ID } from '../lib/postbacks.js';
import { stopChild } from '../lib/processes.js';
import { spawnBenchScript } from '../lib/servers.js';
import { createScenarioServices, withSql } from '../lib/services.js';
import { waitForEmptyQueue } from './applied.js';
import {
  cpuBetween,
  snapshotCpu,
  startCpuSeconds,
  startFigures,
  type StartFigures,
} from '../lib/cpu.js';
import { round } from '../lib/stats.js';

export interface BareWorkerSummary extends StartFigures {
  readonly jobs: number;
  /** Rows written per second, from the first write to the last. */
  readonly applied_per_s: number;
  /** CPU per job from the worker's start to the last row, as the worker scenario counts it. */
  readonly cpu_per_job: {
    worker_us: number;
    worker_main_thread_us: number;
    postgres_us: number;
    redis_us: number;
  };
}

/**
 * The worker's peer: the same number of jobs as the worker scenario, queued first, then
 * drained by bench/servers/bareWorker.ts with paymirror's default concurrency.
 */
export async function measureBareWorker(plan: Plan): Promise<BareWorkerSummary> {
  const services = await createScenarioServices('worker_bare', { migrate: false });
  const queueName = 'bare';
  const queue = new Queue(queueName, {
    connection: { url: services.redisUrl },
    prefix: services.queuePrefix,
  });
  let worker: ReturnType<typeof spawnBenchScript> | null = null;
  try {
    await withSql(
      services.databaseUrl,
      (sql) => sql`
      create table bare_sales (
        id bigint primary key, status text not null, amount_cents bigint not null,
        fee_cents bigint not null, payment_method text not null, customer jsonb not null,
        updated_at timestamptz not null)`,
    );
    for (let first = 0; first < plan.workerJobs; first += 1000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1000, plan.workerJobs - first) }, (_, i) => ({
          name: 'apply',
          data: {
            id: FIRST_SALE_ID + first + i,
            status: 'PAGO',
            amountCents: 15_000,
            feeCents: 150,
            paymentMethod: 'PIX',
            customer: {
              name: 'Maria da Silva',
              email: 'maria@example.com',
              document: '12345678909',
            },
          },
          opts: { removeOnComplete: true },
        })),
      );
    }
    const before = await snapshotCpu([], services.databaseName);
    const workerEnv = {
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      QUEUE_PREFIX: services.queuePrefix,
      QUEUE_NAME: queueName,
      WORKER_CONCURRENCY: String(DEFAULT_WORKER_CONCURRENCY),
    };
    worker = spawnBenchScript('worker-bare', 'servers/bareWorker.ts', [], workerEnv);
    await waitForEmptyQueue(services, queueName, 300_000);
    const deadline = Date.now() + 300_000;
    for (;;) {
      const rows = await withSql(services.databaseUrl, async (sql) => {
        const [row] = await sql<{ n: string }[]>`select count(*) as n from bare_sales`;
        return Number(row?.n ?? 0);
      });
      if (rows >= plan.workerJobs) break;
      if (Date.now() > deadline) throw new Error(`bare worker wrote ${rows} of ${plan.workerJobs}`);
      await sleep(100);
    }
    const cpu = cpuBetween(before, await snapshotCpu([worker.pid], services.databaseName));
    await stopChild(worker);
    worker = null;
    const startSec = await startCpuSeconds(() =>
      Promise.resolve(
        spawnBenchScript('worker-bare-start', 'servers/bareWorker.ts', [], workerEnv),
      ),
    );
    const perJob = (cpuSeconds: number) => round((cpuSeconds / plan.workerJobs) * 1e6, 1);
    const seconds = await withSql(services.databaseUrl, async (sql) => {
      const [span] = await sql<{ seconds: string }[]>`
        select extract(epoch from max(updated_at) - min(updated_at)) as seconds from bare_sales`;
      return Number(span?.seconds ?? 0);
    });
    return {
      jobs: plan.workerJobs,
      applied_per_s: Math.round((plan.workerJobs - 1) / Math.max(seconds, 1e-3)),
      cpu_per_job: {
        worker_us: perJob(cpu.server_s),
        worker_main_thread_us: perJob(cpu.server_main_thread_s),
        postgres_us: perJob(cpu.postgres_s),
        redis_us: perJob(cpu.redis_s),
      },
      ...startFigures(startSec, cpu.server_s, plan.workerJobs),
    };
  } finally {
    if (worker) await stopChild(worker);
    await queue.close();
    await services.drop();
  }
}
