import { afterAll, beforeAll, describe, expect } from 'vitest';
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
  startPostgres,
  stopPostgres,
  streamPostbacks,
  verdict,
} from './harness.js';
import { itControllingServices } from './serviceControl.js';

// Postgres restarted while deliveries stream in: the ingress spools what it cannot store,
// answers 200 only after the fsync, and moves the spool into the inbox once Postgres is back.
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
  await startPostgres();
  await app?.close();
  await queue?.drop();
  await db?.drop();
});

describe('Postgres faults', () => {
  itControllingServices('Postgres restarted while deliveries stream in (spool path)', async () => {
    try {
      const stream = await streamPostbacks(() => app.url, ids(300_000, 300), {
        onSent: async (sent) => {
          if (sent === 100) await stopPostgres();
          if (sent === 200) await startPostgres();
        },
      });
      await waitFor(() => allApplied(db, stream.acknowledged), {
        timeoutMs: 150_000,
        what: 'every acknowledged delivery applied',
      });
      const result = await verdict(db, stream.acknowledged);
      report('postgres-restarted', result);
      expect(result.accepted, stream.refusals.join('\n')).toBe(300);
      expect(result).toMatchObject({ lost: 0, duplicated: 0 });
      const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text();
      expect(metrics).toMatch(/paymirror_spooled_deliveries_total [1-9]/);
    } finally {
      await startPostgres();
    }
  });
});
