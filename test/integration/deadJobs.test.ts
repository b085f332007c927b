import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NOTIFICATIONS_QUEUE, notificationJobId } from '../../src/queue/catalog.js';
import {
  acceptWithoutWorker,
  startTestPaymirror,
  waitFor,
  type TestPaymirror,
} from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// Redis losing some of a job's keys under a running worker (a SCAN-and-DEL of the queue, a
// partial flush) can leave a job that holds an inbox row's job id but will never run it. The
// sweeper must free the id, or its add is a no-op and the row stays pending for good.
const test = useTestDatabase();

async function rowState(inboxId: number): Promise<string | undefined> {
  const rows = await test().database.sql<{ state: string }[]>`
    select state from inbox_events where id = ${inboxId}`;
  return rows[0]?.state;
}

async function historyRows(saleId: number): Promise<number> {
  const rows = await test().database.sql<{ n: number }[]>`
    select count(*)::int as n from status_history
     where resource_type = 'sale' and resource_id = ${saleId} and to_status = 'PAGO'`;
  return rows[0]?.n ?? 0;
}

describe('dead jobs holding a pending row’s job id', () => {
  let queue: TestQueuePrefix;
  let probe: Queue;
  let running: TestPaymirror[] = [];

  beforeEach(() => {
    queue = createTestQueuePrefix();
    probe = new Queue(NOTIFICATIONS_QUEUE, {
      connection: { url: queue.redisUrl },
      prefix: queue.prefix,
    });
  });
  afterEach(async () => {
    for (const app of running) await app.close();
    running = [];
    await probe.close();
    await queue.drop();
  });

  const start = async (roles: string) => {
    const app = await startTestPaymirror({
      db: test(),
      queue,
      roles,
      env: { SWEEP_AFTER_SECONDS: '0' },
    });
    running.push(app);
    return app;
  };

  it('a job whose hash was deleted while its id waited: the worker fails it, the sweeper frees the id and the row is applied', async () => {
    const inboxId = await acceptWithoutWorker({ db: test(), queue }, 7101);
    const jobId = notificationJobId(inboxId);
    // The hash goes, the id stays in the wait list (what a SCAN-and-DEL racing an add leaves).
    expect(await queue.deleteKeys(`notifications:${jobId}`)).toBe(1);

    await start('worker');
    // BullMQ takes the id all the same, re-creates the hash without data or options, and the
    // job fails as malformed; nothing removes it (its removeOnFail went with the hash).
    await waitFor(async () => (await probe.getJobState(jobId)) === 'failed', {
      what: `${jobId} to fail`,
    });
    expect(await rowState(inboxId)).toBe('pending');

    await start('scheduler');
    await waitFor(async () => (await rowState(inboxId)) === 'processed', {
      what: `inbox row ${inboxId} to be processed`,
    });
    expect(await historyRows(7101)).toBe(1);
  });

  it('a job hash that outlived its wait list, in no state: the sweeper frees the id and the row is applied', async () => {
    const inboxId = await acceptWithoutWorker({ db: test(), queue }, 7102);
    const jobId = notificationJobId(inboxId);
    expect(await queue.deleteKeys('notifications:wait')).toBe(1);
    expect(await probe.getJobState(jobId)).toBe('unknown');
    expect(await probe.getJob(jobId)).toBeDefined();

    await start('worker,scheduler');
    await waitFor(async () => (await rowState(inboxId)) === 'processed', {
      what: `inbox row ${inboxId} to be processed`,
    });
    expect(await historyRows(7102)).toBe(1);
  });
});
