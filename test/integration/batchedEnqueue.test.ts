import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBatchedEnqueue } from '../../src/queue/batchedEnqueue.js';
import {
  createNotificationQueue,
  notificationJobId,
  type NotificationQueue,
} from '../../src/queue/catalog.js';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

let prefix: TestQueuePrefix;
let redis: Redis;
let queue: NotificationQueue;
const retry = { attempts: 3, backoffMs: 10 };

beforeAll(() => {
  prefix = createTestQueuePrefix();
  redis = new Redis(prefix.redisUrl, { maxRetriesPerRequest: null });
  queue = createNotificationQueue(redis, prefix.prefix);
});
afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await prefix?.drop();
});

describe('createBatchedEnqueue', () => {
  it('sends the jobs of one moment in one addBulk, each with its row-derived id', async () => {
    const addBulk = vi.spyOn(queue, 'addBulk');
    const enqueue = createBatchedEnqueue(queue, retry, { maxBatch: 100, maxWaitMs: 5 });
    const ids = Array.from({ length: 40 }, (_, i) => 1000 + i);
    await Promise.all([...ids, 1000, 1001].map((id) => enqueue.enqueue(id)));
    await enqueue.close();
    expect(addBulk).toHaveBeenCalledTimes(1);
    addBulk.mockRestore();
    const jobs = await queue.getJobs(['waiting']);
    const jobIds = new Set(jobs.map((job) => job.id));
    // The same row enqueued twice is one job.
    expect(jobIds).toEqual(new Set(ids.map(notificationJobId)));
    const job = jobs.find((j) => j.id === notificationJobId(1000));
    expect(job?.data).toEqual({ inboxEventId: 1000 });
    expect(job?.opts.attempts).toBe(3);
  });

  it('a full batch is sent at once; a failed addBulk rejects its callers', async () => {
    const failing = vi.spyOn(queue, 'addBulk').mockRejectedValue(new Error('redis is away'));
    const enqueue = createBatchedEnqueue(queue, retry, { maxBatch: 2, maxWaitMs: 60_000 });
    const answers = await Promise.allSettled([enqueue.enqueue(1), enqueue.enqueue(2)]);
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    failing.mockRestore();
    await enqueue.close();
    await expect(enqueue.enqueue(3)).rejects.toThrow('closed');
  });
});
