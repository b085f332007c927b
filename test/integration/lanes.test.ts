import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedRateLimiter } from '../../src/gateway/sharedRateLimiter.js';
import { postbackBody, webhookSaleBody } from '../support/fixtures.js';
import { startTestPaymirror, waitFor, type TestPaymirror } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// A flood of webhooks waiting on the gateway must never delay a signed postback (README,
// "Lanes"). The gateway here never answers a GET: every webhook waits for good.
const test = useTestDatabase();
let queue: TestQueuePrefix;
let gateway: Server;
let gets = 0;
let app: TestPaymirror;
const FLOOD = 150;

beforeAll(async () => {
  queue = createTestQueuePrefix();
  gateway = createServer(() => {
    gets += 1; // and never answer
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const port = (gateway.address() as AddressInfo).port;
  app = await startTestPaymirror({
    db: test(),
    queue,
    env: {
      GATEWAY_BASE_URL: `http://127.0.0.1:${port}`,
      GATEWAY_PUBLIC_KEY: 'pk_lanes_test',
      GATEWAY_PRIVATE_KEY: 'sk_lanes_test_0123456789',
      GATEWAY_TIMEOUT_MS: '120000',
      WORKER_CONCURRENCY: '8',
      CONFIRMATION_CONCURRENCY: '4',
      RECONCILE_INTERVAL_SECONDS: '3600',
    },
  });
});
afterAll(async () => {
  gateway?.closeAllConnections();
  await new Promise((resolve) => gateway?.close(resolve));
  await app?.close();
  await queue?.drop();
});

const sql = () => test().database.sql;

describe('lanes', () => {
  it('a signed postback is applied while every webhook waits on the gateway', async () => {
    const hooks = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        app.webhook(webhookSaleBody({ id: 610_000 + i, status: 'PAGO' })),
      ),
    );
    expect(hooks.every((answer) => answer.body.status === 'accepted')).toBe(true);
    // The lane of unknown ids has its slots all taken by reads the gateway never answers.
    await waitFor(() => gets >= 1, { what: 'a GET in flight' });

    const post = await app.postback(postbackBody({ id: 620_001, status: 'PAGO' }));
    const applied = await waitFor(async () => {
      const [row] = await sql()<{ state: string; outcome: string | null }[]>`
        select state, outcome from inbox_events where id = ${post.body.id as number}`;
      return row?.state === 'processed' ? row : undefined;
    });
    expect(applied.outcome).toBe('applied');
    const [pending] = await sql()<{ waiting: number }[]>`
      select count(*)::int as waiting from inbox_events
       where channel = 'webhook' and state = 'pending'`;
    expect(pending?.waiting).toBe(FLOOD);
  });

  it('shows each lane in the metrics: the lane of unknown ids backed up, the others empty', async () => {
    const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    const sample = (labels: string) =>
      Number(new RegExp(`^paymirror_queue_jobs\\{${labels}\\} (\\d+)`, 'm').exec(text)?.[1]);
    expect(sample('queue="confirmations-unknown",state="waiting"')).toBeGreaterThan(0);
    expect(sample('queue="confirmations",state="waiting"')).toBe(0);
    expect(sample('queue="notifications",state="waiting"')).toBe(0);
    expect(text).toMatch(
      /^paymirror_queue_oldest_waiting_age_seconds\{queue="confirmations-unknown"\} /m,
    );
  });
});

describe('the gateway budget shared through Redis', () => {
  it('two limiters on one key hand out no more than the budget between them', async () => {
    const redis = new Redis(queue.redisUrl);
    const key = `${queue.prefix}:budget-test`;
    let clock = 0;
    const taken: number[] = [];
    // Each process thinks it may send 5/s; together they get 5 tokens up front and then wait.
    const limiters = [0, 1].map(() =>
      createSharedRateLimiter(redis, {
        maxPerSecond: 5,
        key,
        sleep: async () => {
          clock += 1;
          throw new Error('would wait');
        },
        onAcquire: () => taken.push(clock),
      }),
    );
    try {
      const answers = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => limiters[i % 2]!.acquire()),
      );
      expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(5);
      expect(taken).toHaveLength(5);
    } finally {
      redis.disconnect();
    }
  });
});
