import { createBatchedEnqueue, type BatchedEnqueue } from '../../src/queue/batchedEnqueue.js';
import type { NotificationQueue, RetryPolicy } from '../../src/queue/catalog.js';

export * from '../../src/queue/catalog.js';

/** enqueueNotifications' signature, answered by one batched enqueue per queue. */
const enqueues = new WeakMap<NotificationQueue, BatchedEnqueue>();
const maxWaitMs = Number(process.env.BENCH_BATCH_WAIT_MS ?? 2);
const maxBatch = Number(process.env.BENCH_BATCH_MAX ?? 64) * 2;

export async function enqueueNotifications(
  queue: NotificationQueue,
  inboxEventIds: readonly number[],
  retry: RetryPolicy,
): Promise<void> {
  let enqueue = enqueues.get(queue);
  if (!enqueue) {
    enqueue = createBatchedEnqueue(queue, retry, { maxBatch, maxWaitMs });
    enqueues.set(queue, enqueue);
  }
  const batched = enqueue;
  await Promise.all(inboxEventIds.map((id) => batched.enqueue(id)));
}
