import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTransitionQueue, publishTransitions } from '../../src/feed/transitionPublisher.js';
import { MAX_JOBS_PER_ADD_BULK } from '../../src/queue/addInChunks.js';
import {
  createNotificationQueue,
  enqueueNotifications,
  notificationJobId,
  TRANSITIONS_QUEUE,
  type NotificationQueue,
} from '../../src/queue/catalog.js';
import type { TransitionQueue } from '../../src/feed/transitionPublisher.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

/**
 * An addBulk is one MULTI/EXEC that Redis runs before serving anyone else: many jobs at once
 * (the transition feed publishes 500 at a time, the sweeper as many as it finds) go in slices.
 */
describe('jobs added in bulk', () => {
  const test = useTestDatabase();
  let redis: TestQueuePrefix;
  let notifications: NotificationQueue;
  let transitions: TransitionQueue;
  const retry = { attempts: 3, backoffMs: 1_000 };

  beforeAll(async () => {
    redis = createTestQueuePrefix();
    const connection = { url: redis.redisUrl };
    notifications = createNotificationQueue(connection, redis.prefix);
    transitions = createTransitionQueue(connection, `${redis.prefix}:${TRANSITIONS_QUEUE}`);
  });
  afterAll(async () => {
    await notifications?.close();
    await transitions?.close();
    await redis?.drop();
  });

  const sizesOf = (calls: unknown[][]) => calls.map(([jobs]) => (jobs as unknown[]).length);

  it('enqueues many notifications in slices, every job once', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => 1_000 + i);
    const addBulk = vi.spyOn(notifications, 'addBulk');
    await enqueueNotifications(notifications, ids, retry);
    expect(sizesOf(addBulk.mock.calls)).toEqual([
      MAX_JOBS_PER_ADD_BULK,
      MAX_JOBS_PER_ADD_BULK,
      150 - 2 * MAX_JOBS_PER_ADD_BULK,
    ]);
    addBulk.mockRestore();
    const waiting = await notifications.getWaiting(0, -1);
    expect(waiting.map((job) => job.id).sort()).toEqual(ids.map(notificationJobId).sort());
  });

  it('publishes a batch of transitions in slices, in history order', async () => {
    await test().database.sql`
      insert into status_history (resource_type, resource_id, from_status, to_status, source)
      select 'sale', n, null, 'PAGO', 'postback' from generate_series(1, 150) as n`;
    const addBulk = vi.spyOn(transitions, 'addBulk');
    expect(await publishTransitions(test().database.sql, transitions, 500)).toBe(150);
    expect(sizesOf(addBulk.mock.calls).every((size) => size <= MAX_JOBS_PER_ADD_BULK)).toBe(true);
    expect(addBulk).toHaveBeenCalledTimes(3);
    addBulk.mockRestore();
    // In the order a worker takes them (asc: oldest first), the jobs follow the history.
    const waiting = await transitions.getJobs(['wait'], 0, -1, true);
    const consumedOrder = waiting.map((job) => (job.data as { historyId: number }).historyId);
    expect(consumedOrder).toHaveLength(150);
    expect(consumedOrder).toEqual([...consumedOrder].sort((a, b) => a - b));
  });
});
