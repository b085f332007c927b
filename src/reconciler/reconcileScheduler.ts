import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { RECONCILE_JOB, RECONCILE_QUEUE } from '../queue/catalog.js';
import type { Sql } from '../db/client.js';
import { withPassLock } from './passLock.js';
import { runReconcilePass, type PassSummary, type ReconcileDeps } from './reconcilePass.js';

export interface ReconcileSchedulerDeps extends ReconcileDeps {
  readonly sql: Sql;
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  readonly intervalSeconds: number;
  readonly batchSize: number;
  readonly onPass?: (summary: PassSummary) => void;
  /** A pass that threw (it is recorded failed in reconciliation_runs too). */
  readonly onPassFailed?: (error: unknown) => void;
}

export interface ReconcileScheduler {
  close(): Promise<void>;
}

/**
 * A BullMQ job scheduler fires a pass every `intervalSeconds`; any number of scheduler
 * processes may register it (the upsert is idempotent) and the lease in scheduler_leases lets one pass
 * run at a time: a tick that finds the lock taken does nothing.
 */
export async function startReconcileScheduler(
  deps: ReconcileSchedulerDeps,
): Promise<ReconcileScheduler> {
  const queue = new Queue(RECONCILE_QUEUE, { connection: deps.connection, prefix: deps.prefix });
  await queue.upsertJobScheduler(
    RECONCILE_JOB,
    { every: deps.intervalSeconds * 1000 },
    { name: RECONCILE_JOB, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
  );
  const worker = new Worker(
    RECONCILE_QUEUE,
    async () => {
      const summary = await withPassLock(deps.sql, 0, () =>
        runReconcilePass(deps, { kind: 'due', limit: deps.batchSize }, 'scheduled'),
      ).catch((error: unknown) => {
        deps.onPassFailed?.(error);
        throw error;
      });
      if (!summary) return;
      deps.onPass?.(summary);
      if (summary.checked > 0) deps.logger.info(summary, 'reconciliation pass finished');
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 1 },
  );
  worker.on('error', (error) => deps.logger.warn({ err: error }, 'reconcile worker error'));
  return {
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
