import { createMicroBatcher } from '../lib/microBatcher.js';
import { MAX_JOBS_PER_ADD_BULK } from './addInChunks.js';
import type { RetryPolicy } from './catalog.js';
import { enqueueInLanes, type LaneQueues, type LaneRow } from './lanes.js';

export interface BatchedEnqueueOptions {
  /**
   * Most jobs in one batch; a full batch is sent at once. Default and most: one addBulk's
   * worth (MAX_JOBS_PER_ADD_BULK), so a batch is never split into slices its callers all wait for.
   */
  readonly maxBatch?: number;
  /** How long the first job of a batch waits for others. Default 2 ms. */
  readonly maxWaitMs?: number;
  /** Statements in flight at once (default: no limit); see createMicroBatcher. */
  readonly maxInFlight?: number;
}

export interface BatchedEnqueue {
  /** Resolves once the addBulk holding this inbox row's job succeeded; rejects if it failed. */
  enqueue(row: LaneRow): Promise<void>;
  /** Sends what is waiting, waits for the addBulk calls in flight, refuses new jobs. */
  close(): Promise<void>;
}

class BatchedEnqueueClosedError extends Error {
  override readonly name = 'BatchedEnqueueClosedError';
  constructor() {
    super('the batched enqueue is closed');
  }
}

/**
 * enqueueInLanes for the accepted rows of a few milliseconds: one addBulk per lane instead of
 * one add per row. Job ids come from the rows, so a row enqueued twice is
 * still one job. A failed addBulk rejects its callers; the sweeper enqueues their rows later.
 */
export function createBatchedEnqueue(
  lanes: LaneQueues,
  gatewayConfigured: boolean,
  retry: RetryPolicy,
  options: BatchedEnqueueOptions = {},
): BatchedEnqueue {
  const batcher = createMicroBatcher<LaneRow, void>(
    async (batch) => {
      await enqueueInLanes(
        lanes,
        batch.map((pending) => pending.item),
        gatewayConfigured,
        retry,
      );
      for (const pending of batch) pending.resolve();
    },
    {
      maxBatch: Math.min(options.maxBatch ?? MAX_JOBS_PER_ADD_BULK, MAX_JOBS_PER_ADD_BULK),
      maxWaitMs: options.maxWaitMs ?? 2,
      ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    },
    () => new BatchedEnqueueClosedError(),
  );
  return { enqueue: (row) => batcher.add(row), close: () => batcher.close() };
}
