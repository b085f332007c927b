import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enqueueNotifications, notificationJobId } from '../../src/queue/catalog.js';
import { closeLaneQueues, createLaneQueues, type LaneQueues } from '../../src/queue/lanes.js';
import { sweepPendingInbox } from '../../src/scheduler/sweeper.js';
import { webhookSaleBody } from '../support/fixtures.js';
import { acceptWithoutWorker, startTestPaymirror } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// The sweeper re-adds a pending row only when no job will run it. A backlog that waits on the
// gateway budget is still queued: adding it again changes nothing, and counting and logging
// it as re-enqueued at every sweep would tell an operator that Redis keeps losing jobs.
const test = useTestDatabase();
const retry = { attempts: 3, backoffMs: 1000 };

describe('the sweeper', () => {
  let queue: TestQueuePrefix;
  let lanes: LaneQueues;

  beforeEach(async () => {
    // Each test sweeps only its own row.
    await test().database.sql`truncate inbox_events, inbox_dedupe_keys cascade`;
    queue = createTestQueuePrefix();
    lanes = createLaneQueues({ url: queue.redisUrl }, () => queue.prefix);
    await Promise.all([
      lanes.signed.waitUntilReady(),
      lanes.confirmation.waitUntilReady(),
      lanes.unknownIds.waitUntilReady(),
    ]);
  });
  afterEach(async () => {
    await closeLaneQueues(lanes);
    await queue.drop();
  });

  const sweep = (gatewayConfigured: boolean) =>
    sweepPendingInbox({
      sql: test().database.sql,
      lanes,
      gatewayConfigured,
      retry,
      afterSeconds: 0,
    });
  const stateIn = (lane: keyof LaneQueues, inboxId: number) =>
    lanes[lane].getJobState(notificationJobId(inboxId));

  /** A pending row whose job is gone: accepted with no worker, then the queue's keys deleted. */
  async function withoutJob(saleId: number): Promise<number> {
    const inboxId = await acceptWithoutWorker({ db: test(), queue }, saleId);
    expect(await queue.deleteKeys('notifications:*')).toBeGreaterThan(0);
    return inboxId;
  }

  /**
   * What the signed lane does with a move that needs a read: its job there completes (and is
   * removed), a job with the same id waits in the confirmation lane.
   */
  async function handedToConfirmationLane(saleId: number): Promise<number> {
    const inboxId = await withoutJob(saleId);
    await enqueueNotifications(lanes.confirmation, [inboxId], retry);
    return inboxId;
  }

  /** Webhooks waiting in the confirmation lane (on the gateway budget), their jobs there. */
  async function webhooksWaiting(firstSaleId: number, count: number): Promise<number[]> {
    const ingress = await startTestPaymirror({ db: test(), queue, roles: 'ingress' });
    const inboxIds: number[] = [];
    try {
      for (let saleId = firstSaleId; saleId < firstSaleId + count; saleId += 1) {
        const answer = await ingress.webhook(webhookSaleBody({ id: saleId, status: 'PAGO' }));
        expect(answer.body.status).toBe('accepted');
        inboxIds.push(answer.body.id as number);
      }
    } finally {
      await ingress.close();
    }
    expect(await queue.deleteKeys('notifications:*')).toBeGreaterThan(0);
    await enqueueNotifications(lanes.confirmation, inboxIds, retry);
    return inboxIds;
  }

  /** A sweep with gateway keys, and the job states each lane read on its own meanwhile. */
  async function sweepCountingStateReads() {
    const reads = [
      vi.spyOn(lanes.signed, 'getJobState'),
      vi.spyOn(lanes.confirmation, 'getJobState'),
    ];
    const swept = await sweep(true);
    return { swept, stateReads: reads.map((read) => read.mock.calls.length) };
  }

  it('leaves a pending row whose job still waits to that job', async () => {
    const inboxId = await acceptWithoutWorker({ db: test(), queue }, 7201);
    expect(await stateIn('signed', inboxId)).toBe('waiting');

    expect(await sweep(false)).toEqual({ requeued: 0, released: 0 });
    expect(await stateIn('signed', inboxId)).toBe('waiting');
  });

  it('leaves a row whose job still waits unwritten', async () => {
    const inboxId = await acceptWithoutWorker({ db: test(), queue }, 7205);
    const version = () => test().database.sql`
      select xmin::text as xmin, enqueued_at::text as enqueued_at
        from inbox_events where id = ${inboxId}`;
    const before = await version();

    expect(await sweep(false)).toEqual({ requeued: 0, released: 0 });
    expect(await version()).toEqual(before);
  });

  it('adds a pending row again once its job is gone', async () => {
    const inboxId = await withoutJob(7202);
    expect(await stateIn('signed', inboxId)).toBe('unknown');

    expect(await sweep(false)).toEqual({ requeued: 1, released: 0 });
    expect(await stateIn('signed', inboxId)).toBe('waiting');
  });

  it('leaves a signed row the signed lane handed to the confirmation lane where it waits', async () => {
    const inboxId = await handedToConfirmationLane(7203);

    expect(await sweep(true)).toEqual({ requeued: 0, released: 0 });
    expect(await stateIn('signed', inboxId)).toBe('unknown');
    expect(await stateIn('confirmation', inboxId)).toBe('waiting');
  });

  it('leaves a webhook about an unknown id where it waits, in the lane of unknown ids', async () => {
    const [inboxId = 0] = await webhooksWaiting(7206, 1);
    await lanes.confirmation.remove(notificationJobId(inboxId));
    await enqueueNotifications(lanes.unknownIds, [inboxId], retry);

    expect(await sweep(true)).toEqual({ requeued: 0, released: 0 });
    expect(await stateIn('unknownIds', inboxId)).toBe('waiting');
    expect(await stateIn('confirmation', inboxId)).toBe('unknown');
  });

  it('adds a row waiting in the confirmation lane to the signed lane once there are no gateway keys', async () => {
    const inboxId = await handedToConfirmationLane(7204);

    // Without keys no worker takes the confirmation lane: the signed lane applies the row.
    expect(await sweep(false)).toEqual({ requeued: 1, released: 0 });
    expect(await stateIn('signed', inboxId)).toBe('waiting');
  });

  // getJobState finds a waiting job by scanning the whole wait list (LPOS): read for each row of
  // a backlog, Redis's work grows with the backlog squared (32,000 rows: 8.5 s a sweep).
  it('finds the jobs of a backlog waiting without reading each job’s state', async () => {
    const inboxIds = await webhooksWaiting(7300, 40);

    expect(await sweepCountingStateReads()).toEqual({
      swept: { requeued: 0, released: 0 },
      stateReads: [0, 0],
    });
    for (const inboxId of inboxIds) expect(await stateIn('confirmation', inboxId)).toBe('waiting');
  });

  it('adds rows whose jobs are gone without scanning the backlog waiting in the other lane', async () => {
    await webhooksWaiting(7400, 40);
    const lost = [await withoutJob(7450), await withoutJob(7451), await withoutJob(7452)];

    expect(await sweepCountingStateReads()).toEqual({
      swept: { requeued: 3, released: 0 },
      stateReads: [0, 0],
    });
    for (const inboxId of lost) expect(await stateIn('signed', inboxId)).toBe('waiting');
  });
});
