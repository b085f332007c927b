import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { withQueue } from '../../src/cli/storageContext.js';
import { createTestQueuePrefix } from '../support/services.js';

// `inbox replay` of a row that needs no replay enqueues nothing; it used to close its queue
// before the queue had started, and died now and then on an uncaught "Connection is closed".
describe('a command that enqueues', () => {
  const redis = createTestQueuePrefix();
  afterAll(() => redis.drop());
  const config = parseConfig({
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
    REDIS_URL: redis.redisUrl,
    QUEUE_PREFIX: redis.prefix,
  });

  it('gets a queue that has finished starting, so closing it at once loses nothing', async () => {
    const version = await withQueue(config, (queue) => Promise.resolve(queue.redisVersion));
    expect(version).toMatch(/^\d+\.\d+/);
  });
});
