import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedAuthFailureLimiter } from '../../src/ingress/sharedAuthFailures.js';
import { createTestQueuePrefix, type TestQueuePrefix } from '../support/services.js';

// Three ingress processes behind one load balancer are one target: a source's unauthenticated
// failures count across all of them.
let prefix: TestQueuePrefix;
let redis: Redis;

beforeAll(() => {
  prefix = createTestQueuePrefix();
  redis = new Redis(prefix.redisUrl);
});
afterAll(async () => {
  redis?.disconnect();
  await prefix?.drop();
});

describe('the auth-failure limit across ingress processes', () => {
  it('blocks a source that reached the limit across processes, each after at most one more failure', async () => {
    let clock = 1_000_000;
    const options = {
      keyPrefix: prefix.prefix,
      maxFailures: 5,
      windowMs: 60_000,
      now: () => clock,
    };
    const [a, b, c] = [0, 1, 2].map(() => createSharedAuthFailureLimiter(redis, options));
    const source = '203.0.113.7';
    for (let i = 0; i < 3; i += 1) await a!.recordFailure(source);
    await b!.recordFailure(source);
    expect(b!.isBlocked(source)).toBe(false);
    await b!.recordFailure(source); // the fifth failure in all
    expect(b!.isBlocked(source)).toBe(true);
    expect(b!.retryAfterSeconds(source)).toBe(60);
    // A process alone would have allowed two more; it learns on its next failure.
    expect(a!.isBlocked(source)).toBe(false);
    await a!.recordFailure(source);
    expect(a!.isBlocked(source)).toBe(true);
    await c!.recordFailure(source);
    expect(c!.isBlocked(source)).toBe(true);
    // Other sources are counted on their own; the block ends with the window.
    expect(c!.isBlocked('203.0.113.8')).toBe(false);
    clock += 61_000;
    expect(b!.isBlocked(source)).toBe(false);
  });

  it('with Redis away, the local limit alone still holds', async () => {
    const away = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    away.on('error', () => {});
    const errors: unknown[] = [];
    const limiter = createSharedAuthFailureLimiter(away, {
      keyPrefix: prefix.prefix,
      maxFailures: 2,
      onError: (error) => errors.push(error),
    });
    await limiter.recordFailure('198.51.100.1');
    await limiter.recordFailure('198.51.100.1');
    expect(limiter.isBlocked('198.51.100.1')).toBe(true);
    expect(errors).toHaveLength(2);
    away.disconnect();
  });
});
