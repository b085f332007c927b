import { NOTIFICATIONS_QUEUE, enqueueNotifications, type RetryPolicy } from '../queue/catalog.js';
import type { NotificationQueue } from '../queue/catalog.js';
import { createInboxBatcher, type InboxBatcher } from './inboxBatcher.js';
import { startLaneWorker, type LaneWorker, type LaneWorkerDeps } from './laneWorker.js';
import { processInboxBatch } from './processInboxBatch.js';

/**
 * Batch transactions a worker process runs at once; rows gather for the next meanwhile. Two,
 * so that a backlog's next batch is planned and sent while Postgres runs the one before it.
 * But a second batch starts only once OVERLAP_FROM rows wait: at a few
 * hundred rows a second, a second batch in flight only split the rows one batch would have
 * taken, paying a batch's fixed cost (its round trips and commit) twice as often. The
 * confirmation lane runs two at any size: its batches wait on gateway reads.
 */
const BATCHES_IN_FLIGHT = 2;
const OVERLAP_FROM = 32;

export interface SignedLaneDeps extends LaneWorkerDeps {
  readonly concurrency: number;
  /** Where rows that need a gateway read go; null without gateway keys (nothing needs one). */
  readonly confirmationQueue: NotificationQueue | null;
  readonly retry: RetryPolicy;
}

export interface RunningLane {
  readonly worker: LaneWorker;
  close(): Promise<void>;
}

/**
 * The signed lane (queue `notifications`): applies the rows that need no gateway read, many to
 * a transaction, and never waits on the gateway: a row that needs a read (an unsigned webhook,
 * a signed move on a cycle) is handed to the confirmation lane and its job completes.
 */
export function startNotificationWorker(deps: SignedLaneDeps): RunningLane {
  const batcher: InboxBatcher = createInboxBatcher({
    read: false,
    maxBatch: deps.concurrency,
    maxInFlight: BATCHES_IN_FLIGHT,
    overlapFrom: OVERLAP_FROM,
    run: (ids, options) => processInboxBatch(deps, ids, options),
    onBatchFailure: (error, size) =>
      deps.logger.warn({ err: error, size }, 'batch failed; applying its rows one by one'),
    forward: (rows) => {
      const queue = deps.confirmationQueue;
      if (!queue) {
        for (const row of rows) row.reject(new NoConfirmationLaneError(row.item));
        return;
      }
      enqueueNotifications(
        queue,
        rows.map((row) => row.item),
        deps.retry,
      ).then(
        () => {
          for (const row of rows) row.resolve({ kind: 'forwarded', to: 'confirmation' });
        },
        (error: unknown) => {
          for (const row of rows) row.reject(error);
        },
      );
    },
  });
  const worker = startLaneWorker(NOTIFICATIONS_QUEUE, batcher, deps.concurrency, deps);
  return {
    worker,
    async close() {
      await worker.close();
      await batcher.close();
    },
  };
}

class NoConfirmationLaneError extends Error {
  override readonly name = 'NoConfirmationLaneError';
  constructor(id: number) {
    super(`inbox row ${id} needs a gateway read, and this process has no confirmation lane`);
  }
}
