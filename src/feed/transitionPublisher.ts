import { Queue, type ConnectionOptions } from 'bullmq';
import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { markPublished, unpublishedTransitions } from '../mirror/sql/history.js';
import { addInChunks } from '../queue/addInChunks.js';
import { runPeriodically, type PeriodicTask } from '../scheduler/periodic.js';
import {
  TRANSITION_JOB,
  TRANSITIONS_QUEUE,
  transitionJobId,
  type TransitionJob,
} from '../queue/catalog.js';

/** Any fixed number shared by every process: one publisher at a time keeps the order. */
const PUBLISHER_LOCK_KEY = 7_246_103;

const PUBLISH_BATCH = 500;

/** Completed jobs are kept this long so a re-publish of the same row is deduped by its id. */
const KEEP_COMPLETED_SECONDS = 7 * 24 * 3600;

export type TransitionQueue = Queue<TransitionJob, unknown, typeof TRANSITION_JOB>;

export function createTransitionQueue(
  connection: ConnectionOptions,
  prefix: string,
): TransitionQueue {
  return new Queue<TransitionJob, unknown, typeof TRANSITION_JOB>(TRANSITIONS_QUEUE, {
    connection,
    prefix,
  });
}

/**
 * The outbox step: puts unpublished status_history rows on the transitions queue in id order
 * (per record, id order is commit order: the mirror row lock serialises its writers), then
 * marks them published, in one transaction under a lock only one process can hold. A crash
 * between the add and the commit re-adds the same job ids, which BullMQ ignores.
 */
export async function publishTransitions(
  sql: Sql,
  queue: TransitionQueue,
  batchSize = 500,
): Promise<number> {
  return sql.begin(async (tx) => {
    const [lock] = await tx<
      { locked: boolean }[]
    >`select pg_try_advisory_xact_lock(${PUBLISHER_LOCK_KEY}) as locked`;
    if (!lock?.locked) return 0;
    const rows = await unpublishedTransitions(tx, batchSize);
    if (rows.length === 0) return 0;
    await addInChunks(
      queue,
      rows.map((row) => ({
        name: TRANSITION_JOB,
        data: {
          historyId: row.id,
          resourceType: row.resourceType,
          resourceId: row.resourceId,
          fromStatus: row.fromStatus,
          toStatus: row.toStatus,
          source: row.source,
          recordedAt: row.recordedAt.toISOString(),
        },
        opts: {
          jobId: transitionJobId(row.id),
          removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
          removeOnFail: { age: KEEP_COMPLETED_SECONDS },
        },
      })),
    );
    await markPublished(
      tx,
      rows.map((row) => row.id),
    );
    return rows.length;
  });
}

/**
 * Publishes every `intervalMs`, and at once again while batches come back full. While
 * `maxBacklog` jobs wait unconsumed (nobody reads the feed), publishing pauses: the rows wait
 * in the outbox (status_history, in Postgres) rather than filling a Redis that must not evict.
 */
export function startTransitionPublisher(
  sql: Sql,
  queue: TransitionQueue,
  options: { intervalMs: number; maxBacklog: number },
  logger: Logger,
): PeriodicTask {
  let warnedAt = 0;
  return runPeriodically(
    'publish transitions',
    async () => {
      const waiting = await queue.getWaitingCount();
      if (waiting >= options.maxBacklog) {
        if (Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now();
          logger.warn(
            { waiting, maxBacklog: options.maxBacklog },
            'transition feed not consumed: publishing paused (TRANSITIONS_MAX_BACKLOG)',
          );
        }
        return { again: false };
      }
      const batch = Math.min(PUBLISH_BATCH, options.maxBacklog - waiting);
      const count = await publishTransitions(sql, queue, batch);
      if (count > 0) logger.debug({ count }, 'transitions published');
      return { again: count >= batch };
    },
    options.intervalMs,
    logger,
  );
}
