import { enqueueNotifications, type NotificationQueue, type RetryPolicy } from './catalog.js';

export interface BatchedEnqueueOptions {
  /** Most jobs in one addBulk; a full batch is sent at once. Default 128. */
  readonly maxBatch?: number;
  /** How long the first job of a batch waits for others. Default 2 ms. */
  readonly maxWaitMs?: number;
}

export interface BatchedEnqueue {
  /** Resolves once the addBulk holding this inbox row's job succeeded; rejects if it failed. */
  enqueue(inboxEventId: number): Promise<void>;
  /** Sends what is waiting, waits for the addBulk calls in flight, refuses new jobs. */
  close(): Promise<void>;
}

export class BatchedEnqueueClosedError extends Error {
  override readonly name = 'BatchedEnqueueClosedError';
  constructor() {
    super('the batched enqueue is closed');
  }
}

interface Waiting {
  readonly id: number;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * enqueueNotifications for the accepted rows of a few milliseconds: one addBulk (one round
 * trip) instead of one add per row. Job ids come from the rows, so a row enqueued twice is
 * still one job. A failed addBulk rejects its callers; the sweeper enqueues their rows later.
 */
export function createBatchedEnqueue(
  queue: NotificationQueue,
  retry: RetryPolicy,
  options: BatchedEnqueueOptions = {},
): BatchedEnqueue {
  const maxBatch = Math.max(1, options.maxBatch ?? 128);
  const maxWaitMs = Math.max(0, options.maxWaitMs ?? 2);
  let waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const inFlight = new Set<Promise<void>>();

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    const run = enqueueNotifications(
      queue,
      batch.map((item) => item.id),
      retry,
    ).then(
      () => batch.forEach((item) => item.resolve()),
      (error: unknown) => batch.forEach((item) => item.reject(error)),
    );
    const tracked = run.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  return {
    enqueue(inboxEventId) {
      if (closed) return Promise.reject(new BatchedEnqueueClosedError());
      return new Promise<void>((resolve, reject) => {
        waiting.push({ id: inboxEventId, resolve, reject });
        if (waiting.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
    async close() {
      closed = true;
      flush();
      await Promise.all(inFlight);
    },
  };
}
