import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createNotificationQueue,
  enqueueNotifications,
  notificationJobId,
  type NotificationQueue,
} from '../../src/queue/catalog.js';
import { jobsToAdd, liveJobIds, rowsWithLiveJobs } from '../../src/queue/liveJobs.js';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

const retry = { attempts: 3, backoffMs: 1000 };
const range = (first: number, count: number) =>
  Array.from({ length: count }, (_, index) => first + index);

describe('the ids of jobs that will still run', () => {
  let prefix: TestQueuePrefix;
  let queue: NotificationQueue;

  beforeEach(async () => {
    prefix = createTestQueuePrefix();
    queue = createNotificationQueue({ url: prefix.redisUrl }, prefix.prefix);
    await queue.waitUntilReady();
  });
  afterEach(async () => {
    await queue.close();
    await prefix.drop();
  });

  it('reads every waiting, paused and delayed job, page by page', async () => {
    await enqueueNotifications(queue, range(1, 23), retry);
    await queue.add(
      'apply-notification',
      { inboxEventId: 24 },
      {
        jobId: notificationJobId(24),
        delay: 60_000,
      },
    );
    await queue.pause();
    await enqueueNotifications(queue, range(25, 4), retry);

    const ids = await liveJobIds(queue, 5);
    expect([...ids].sort()).toEqual(range(1, 28).map(notificationJobId).sort());
  });

  it('reads on its own the state of a job missing from the ids given', async () => {
    await enqueueNotifications(queue, [1, 2], retry);
    const listed = new Set([notificationJobId(1)]);

    expect(await rowsWithLiveJobs(queue, [1, 2, 3], listed)).toEqual(new Set([1, 2]));
    expect(await jobsToAdd(queue, [1, 2, 3], listed)).toEqual({
      inboxEventIds: [3],
      released: 0,
    });
  });

  it('takes a job given as live at its word', async () => {
    const listed = new Set([notificationJobId(5)]);
    expect(await rowsWithLiveJobs(queue, [5], listed)).toEqual(new Set([5]));
    expect(await jobsToAdd(queue, [5], listed)).toEqual({ inboxEventIds: [], released: 0 });
  });
});
