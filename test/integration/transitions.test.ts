import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { TRANSITIONS_QUEUE } from '../../src/queue/catalog.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { createTestDatabase, createTestQueuePrefix } from '../support/services.js';
import {
  startTransitionReceiver,
  type ReceivedTransition,
  type TransitionReceiver,
} from '../support/transitionReceiver.js';

// The transition feed: every status_history row delivered exactly once, in order per record.
let receiver: TransitionReceiver | undefined;
let received: ReceivedTransition[] = [];
let failuresLeft = 1;

beforeAll(async () => {
  // The consumer fails once: the first transition must still arrive exactly once.
  receiver = await startTransitionReceiver(() => (failuresLeft-- > 0 ? 500 : 200));
  received = receiver.received;
});
afterAll(async () => {
  await receiver?.close();
});
const t = useTestApp({
  env: () => ({
    TRANSITIONS_WEBHOOK_URL: receiver?.url ?? '',
    TRANSITIONS_PUBLISH_INTERVAL_MS: '50',
  }),
});

const delivered = () => received.filter((r) => r.answered === 200);

describe('transition feed', () => {
  it('delivers every history row exactly once, in order per record, despite duplicates and a failing consumer', async () => {
    const sends = [
      () => t.app.postback(postbackBody({ id: 7001, status: 'PAGO' })),
      () => t.app.postback(postbackBody({ id: 7001, status: 'PAGO' })),
      () => t.app.webhook(webhookSaleBody({ id: 7001, status: 'PAGO' })),
      () => t.app.postback(postbackBody({ id: 7002, status: 'PAGO' })),
      () =>
        t.app.webhook(
          withdrawalBody({ id: 7101, status: 'PROCESSING', updatedAt: '2026-11-20T10:00:00.000Z' }),
        ),
    ];
    for (const send of sends) await send();
    const firstBatch = await waitFor(async () => {
      const rows = await t.db.database
        .sql`select count(*)::int as n from inbox_events where state = 'pending'`;
      return rows[0]?.n === 0 ? true : undefined;
    });
    expect(firstBatch).toBe(true);
    await t.app.postback(postbackBody({ id: 7001, status: 'ESTORNADO' }));
    await t.app.webhook(
      withdrawalBody({ id: 7101, status: 'COMPLETED', updatedAt: '2026-11-20T11:00:00.000Z' }),
    );

    const history = await waitFor(
      async () => {
        const rows = await t.db.database.sql<
          { id: string }[]
        >`select id from status_history order by id`;
        return rows.length === 5 && delivered().length === 5
          ? rows.map((r) => Number(r.id))
          : undefined;
      },
      { what: 'five transitions delivered' },
    );

    expect(
      delivered()
        .map((r) => r.transition.historyId)
        .sort((a, b) => a - b),
    ).toEqual(history);
    expect(received.filter((r) => r.answered === 500)).toHaveLength(1);
    const failed = received.find((r) => r.answered === 500);
    expect(
      delivered().filter((r) => r.transition.historyId === failed?.transition.historyId),
    ).toHaveLength(1);
    for (const r of received)
      expect(r.headers['idempotency-key']).toBe(`transition-${r.transition.historyId}`);

    const perRecord = new Map<string, number[]>();
    for (const r of delivered()) {
      const key = `${r.transition.resourceType}:${r.transition.resourceId}`;
      perRecord.set(key, [...(perRecord.get(key) ?? []), r.transition.historyId]);
    }
    for (const ids of perRecord.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(
      delivered()
        .filter((r) => r.transition.resourceId === 7001)
        .map((r) => r.transition.toStatus),
    ).toEqual(['PAGO', 'ESTORNADO']);
  });

  it('publishing the same rows again adds no job and posts nothing twice', async () => {
    const before = received.length;
    await t.db.database.sql`update status_history set published_at = null`;
    await waitFor(async () => {
      const rows = await t.db.database
        .sql`select count(*)::int as n from status_history where published_at is null`;
      return rows[0]?.n === 0 ? true : undefined;
    });
    const probe = new Queue(TRANSITIONS_QUEUE, {
      connection: { url: t.queue.redisUrl },
      prefix: t.queue.prefix,
    });
    try {
      const counts = await probe.getJobCounts('waiting', 'active', 'delayed', 'completed');
      expect(counts).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 5 });
    } finally {
      await probe.close();
    }
    expect(received.length).toBe(before);
  });
});

describe('an injected transitions job', () => {
  it('is checked against status_history, dropped and counted, never posted', async () => {
    const [real] = await t.db.database.sql<{ id: string }[]>`
      select id from status_history where published_at is not null order by id limit 1`;
    const genuine = received.find((r) => r.transition.historyId === Number(real?.id));
    expect(genuine).toBeDefined();
    const before = received.length;
    const injector = new Queue(TRANSITIONS_QUEUE, {
      connection: { url: t.queue.redisUrl },
      prefix: t.queue.prefix,
    });
    try {
      const forged: [string, unknown][] = [
        ['injected-unknown', { ...genuine?.transition, historyId: 99_999_999 }],
        ['injected-altered', { ...genuine?.transition, toStatus: 'ESTORNADO' }],
        ['injected-garbage', { hello: 'world' }],
      ];
      for (const [jobId, data] of forged) await injector.add('transition', data, { jobId });
      await waitFor(
        async () => {
          const states = await Promise.all(
            forged.map(async ([jobId]) => (await injector.getJob(jobId))?.getState()),
          );
          return states.every((state) => state === 'completed') ? true : undefined;
        },
        { what: 'the injected jobs to be consumed' },
      );
    } finally {
      await injector.close();
    }
    expect(received.length).toBe(before);
    const metrics = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^paymirror_transitions_dropped_total 3$/m);
  });
});

describe('a feed nobody consumes', () => {
  it('stops at TRANSITIONS_MAX_BACKLOG: the rest waits in the outbox, and the metric shows it', async () => {
    // A database of its own: the file's other paymirror would publish these rows itself.
    const feedDb = await createTestDatabase();
    const feedQueue = createTestQueuePrefix();
    const unread = await startTestPaymirror({
      db: feedDb,
      queue: feedQueue,
      env: {
        TRANSITIONS_ENABLED: 'true',
        TRANSITIONS_MAX_BACKLOG: '100',
        TRANSITIONS_PUBLISH_INTERVAL_MS: '50',
      },
    });
    try {
      await Promise.all(
        Array.from({ length: 130 }, (_, i) =>
          unread.postback(postbackBody({ id: 72_000 + i, status: 'PAGO' })),
        ),
      );
      const metric =
        /^paymirror_queue_jobs\{queue="paymirror-transitions",state="waiting"\} (\d+)$/m;
      const waiting = await waitFor(
        async () => {
          const text = await (await fetch(`${unread.metricsUrl}/metrics`)).text();
          const value = Number(metric.exec(text)?.[1] ?? -1);
          return value >= 100 ? value : undefined;
        },
        { what: 'the feed backlog to reach its bound', timeoutMs: 20_000 },
      );
      expect(waiting).toBe(100);
      // The rows past the bound stay in the outbox, unpublished: nothing is lost.
      await waitFor(async () => {
        const [row] = await feedDb.database.sql<{ n: number }[]>`
          select count(*)::int as n from status_history where published_at is null`;
        return row?.n === 30 ? true : undefined;
      });
      const probe = new Queue(TRANSITIONS_QUEUE, {
        connection: { url: feedQueue.redisUrl },
        prefix: feedQueue.prefix,
      });
      try {
        expect(await probe.getWaitingCount()).toBe(100);
      } finally {
        await probe.close();
      }
    } finally {
      await unread.close();
      await feedQueue.drop();
      await feedDb.drop();
    }
  });
});

describe('the feed, not asked for', () => {
  it('is not published (no queue, no metric, rows left in the outbox), and a scheduler says so when it was before', async () => {
    const quietDb = await createTestDatabase();
    const quietQueue = createTestQueuePrefix();
    try {
      const quiet = await startTestPaymirror({ db: quietDb, queue: quietQueue });
      try {
        await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            quiet.postback(postbackBody({ id: 73_000 + i, status: 'PAGO' })),
          ),
        );
        await waitFor(async () => {
          const [row] = await quietDb.database.sql<{ n: number }[]>`
            select count(*)::int as n from status_history`;
          return row?.n === 5 ? true : undefined;
        });
        const metrics = await (await fetch(`${quiet.metricsUrl}/metrics`)).text();
        expect(metrics).toMatch(/^paymirror_queue_jobs\{queue="notifications"/m);
        expect(metrics).not.toContain('paymirror-transitions');
      } finally {
        await quiet.close();
      }
      const [unpublished] = await quietDb.database.sql<{ n: number }[]>`
        select count(*)::int as n from status_history where published_at is null`;
      expect(unpublished?.n).toBe(5);

      // A deployment that consumed the feed while it was on by default, upgraded: told so.
      const started = async () => {
        const lines: { level: number; msg: string }[] = [];
        const logger = createLogger({
          level: 'debug',
          destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
        });
        const scheduler = await startTestPaymirror({
          db: quietDb,
          queue: quietQueue,
          roles: 'scheduler',
          logger,
        });
        try {
          return await waitFor(() => lines.find((l) => l.msg.includes('transition feed is off')));
        } finally {
          await scheduler.close();
        }
      };
      expect(await started()).toMatchObject({ level: 20, msg: /as it was before/ });
      await quietDb.database.sql`update status_history set published_at = now()`;
      expect(await started()).toMatchObject({ level: 40, msg: /set TRANSITIONS_ENABLED=true/ });
    } finally {
      await quietQueue.drop();
      await quietDb.drop();
    }
  });
});
