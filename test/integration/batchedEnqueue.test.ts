import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_JOBS_PER_ADD_BULK } from '../../src/queue/addInChunks.js';
import { createBatchedEnqueue } from '../../src/queue/batchedEnqueue.js';
import {
  CONFIRMATIONS_QUEUE,
  UNKNOWN_IDS_QUEUE,
  createNotificationQueue,
  notificationJobId,
  type NotificationQueue,
} from '../../src/queue/catalog.js';
import type { LaneQueues } from '../../src/queue/lanes.js';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

let prefix: TestQueuePrefix;
let redis: Redis;
let queue: NotificationQueue;
let confirmations: NotificationQueue;
let unknownIds: NotificationQueue;
const lanes = (): LaneQueues => ({ signed: queue, confirmation: confirmations, unknownIds });
const retry = { attempts: 3, backoffMs: 10 };

beforeAll(() => {
  prefix = createTestQueuePrefix();
  redis = new Redis(prefix.redisUrl, { maxRetriesPerRequest: null });
  queue = createNotificationQueue(redis, prefix.prefix);
  confirmations = createNotificationQueue(redis, prefix.prefix, CONFIRMATIONS_QUEUE);
  unknownIds = createNotificationQueue(redis, prefix.prefix, UNKNOWN_IDS_QUEUE);
});
afterAll(async () => {
  await queue?.close();
  await confirmations?.close();
  await unknownIds?.close();
  redis?.disconnect();
  await prefix?.drop();
});

describe('createBatchedEnqueue', () => {
  it('sends the jobs of one moment in one addBulk, each with its row-derived id', async () => {
    const addBulk = vi.spyOn(queue, 'addBulk');
    const enqueue = createBatchedEnqueue(lanes(), false, retry, { maxBatch: 100, maxWaitMs: 5 });
    const ids = Array.from({ length: 40 }, (_, i) => 1000 + i);
    await Promise.all(
      [...ids, 1000, 1001].map((id) => enqueue.enqueue({ id, channel: 'postback' })),
    );
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

  it('never holds more than one addBulk slice in a batch: the first slice is answered alone', async () => {
    const resolvedAtEachAdd: number[] = [];
    let resolved = 0;
    const real = queue.addBulk.bind(queue);
    const addBulk = vi.spyOn(queue, 'addBulk').mockImplementation((jobs) => {
      resolvedAtEachAdd.push(resolved);
      return real(jobs);
    });
    // As the ingress runs it: one batch in flight, whatever maxBatch asks for.
    const enqueue = createBatchedEnqueue(lanes(), false, retry, {
      maxBatch: 500,
      maxWaitMs: 5,
      maxInFlight: 1,
    });
    const ids = Array.from({ length: 100 }, (_, i) => 3000 + i);
    await Promise.all(
      ids.map((id) => enqueue.enqueue({ id, channel: 'postback' }).then(() => (resolved += 1))),
    );
    await enqueue.close();
    expect(addBulk.mock.calls.map(([jobs]) => jobs.length)).toEqual([
      MAX_JOBS_PER_ADD_BULK,
      100 - MAX_JOBS_PER_ADD_BULK,
    ]);
    // The first slice's callers were answered before the second slice was sent.
    expect(resolvedAtEachAdd).toEqual([0, MAX_JOBS_PER_ADD_BULK]);
    addBulk.mockRestore();
  });

  it('a full batch is sent at once; a failed addBulk rejects its callers', async () => {
    const failing = vi.spyOn(queue, 'addBulk').mockRejectedValue(new Error('redis is away'));
    const enqueue = createBatchedEnqueue(lanes(), false, retry, { maxBatch: 2, maxWaitMs: 60_000 });
    const answers = await Promise.allSettled([
      enqueue.enqueue({ id: 1, channel: 'postback' }),
      enqueue.enqueue({ id: 2, channel: 'webhook' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    failing.mockRestore();
    await enqueue.close();
    await expect(enqueue.enqueue({ id: 3, channel: 'postback' })).rejects.toThrow('closed');
  });

  it('puts webhooks in the confirmation lane when the gateway can be read, postbacks never', async () => {
    const enqueue = createBatchedEnqueue(lanes(), true, retry, { maxBatch: 10, maxWaitMs: 5 });
    await Promise.all([
      enqueue.enqueue({ id: 5001, channel: 'webhook' }),
      enqueue.enqueue({ id: 5002, channel: 'postback' }),
    ]);
    await enqueue.close();
    expect((await confirmations.getJobs(['waiting'])).map((job) => job.id)).toEqual([
      notificationJobId(5001),
    ]);
    expect(await queue.getJob(notificationJobId(5002))).toBeDefined();
    expect(await queue.getJob(notificationJobId(5001))).toBeUndefined();
  });

  it('puts a webhook whose store found no mirror record in the lane of unknown ids', async () => {
    const enqueue = createBatchedEnqueue(lanes(), true, retry, { maxBatch: 10, maxWaitMs: 5 });
    await Promise.all([
      enqueue.enqueue({ id: 6001, channel: 'webhook', recordKnown: false }),
      enqueue.enqueue({ id: 6002, channel: 'webhook', recordKnown: true }),
      enqueue.enqueue({ id: 6003, channel: 'webhook', recordKnown: null }),
    ]);
    await enqueue.close();
    const waiting = async (lane: NotificationQueue) =>
      (await lane.getJobs(['waiting'])).map((job) => job.id).sort();
    expect(await waiting(unknownIds)).toEqual([notificationJobId(6001)]);
    expect(await waiting(confirmations)).toEqual(
      expect.arrayContaining([notificationJobId(6002), notificationJobId(6003)]),
    );
    expect(await waiting(confirmations)).not.toContain(notificationJobId(6001));
  });
});
