import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPaymirror, waitFor, type TestPaymirror } from '../support/paymirror.js';
import {
  createTestDatabase,
  createTestQueuePrefix,
  type TestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';
import {
  allApplied,
  ids,
  report,
  startRedis,
  stopRedis,
  streamPostbacks,
  verdict,
} from './harness.js';
import { itControllingServices } from './serviceControl.js';

// Redis loses its data, or goes away, while deliveries stream in: the inbox in Postgres and
// the sweeper must bring every acknowledged notification to the mirror, once.
let db: TestDatabase;
let queue: TestQueuePrefix;
let app: TestPaymirror;

beforeAll(async () => {
  db = await createTestDatabase();
  queue = createTestQueuePrefix();
  app = await startTestPaymirror({
    db,
    queue,
    env: { SWEEP_AFTER_SECONDS: '2', SWEEP_INTERVAL_SECONDS: '1' },
  });
});
afterAll(async () => {
  await startRedis();
  await app?.close();
  await queue?.drop();
  await db?.drop();
});

describe('Redis faults', () => {
  it('Redis flushed while deliveries stream in', async () => {
    const stream = await streamPostbacks(() => app.url, ids(100_000, 300), {
      onSent: async (sent) => {
        if (sent === 100 || sent === 200) await queue.deleteKeys();
      },
    });
    await waitFor(() => allApplied(db, stream.acknowledged), {
      timeoutMs: 90_000,
      what: 'every acknowledged delivery applied',
    });
    const result = await verdict(db, stream.acknowledged);
    report('redis-flushed', result);
    expect(result.accepted, stream.refusals.join('\n')).toBe(300);
    expect(result).toMatchObject({ lost: 0, duplicated: 0 });
  });

  itControllingServices('Redis restarted while deliveries stream in', async () => {
    try {
      const stream = await streamPostbacks(() => app.url, ids(200_000, 300), {
        onSent: async (sent) => {
          if (sent === 100) await stopRedis();
          if (sent === 200) await startRedis();
        },
      });
      await waitFor(() => allApplied(db, stream.acknowledged), {
        timeoutMs: 120_000,
        what: 'every acknowledged delivery applied',
      });
      const result = await verdict(db, stream.acknowledged);
      report('redis-restarted', result);
      expect(result.accepted, stream.refusals.join('\n')).toBe(300);
      expect(result).toMatchObject({ lost: 0, duplicated: 0 });
    } finally {
      await startRedis();
    }
  });
});
