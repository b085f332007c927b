import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

// patches/ioredis+5.11.1.patch: a pipeline's length is a getter on the class, not an accessor
// defined on each pipeline, whose AccessorPair V8 allocates in the old generation and which kept
// every pipeline (BullMQ's addBulk is one) alive across young collections (bench/PERFORMANCE.md,
// session 18). The length must read as before, for a pipeline and for a MULTI.
describe('ioredis pipelines', () => {
  let redis: TestQueuePrefix;
  let client: Redis;

  beforeAll(() => {
    redis = createTestQueuePrefix();
    client = new Redis(redis.redisUrl, { maxRetriesPerRequest: 3 });
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.drop();
  });

  it('count their commands through the class getter, and run them', async () => {
    const key = `${redis.prefix}:pipeline`;
    const pipeline = client.pipeline().set(key, '1').incr(key).get(key);
    expect(Object.hasOwn(pipeline, 'length')).toBe(false);
    expect(pipeline.length).toBe(3);
    expect(await pipeline.exec()).toEqual([
      [null, 'OK'],
      [null, 2],
      [null, '2'],
    ]);

    const multi = client.multi().incr(key).get(key);
    expect(Object.hasOwn(multi, 'length')).toBe(false);
    expect(multi.length).toBe(3); // MULTI itself is queued first
    expect(await multi.exec()).toEqual([
      [null, 3],
      [null, '3'],
    ]);
  });
});
