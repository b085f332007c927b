import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDelivery } from '../../src/inbox/delivery.js';
import { storeDelivery } from '../../src/inbox/storeDelivery.js';
import { enqueueNotifications } from '../../src/queue/catalog.js';
import { closeLaneQueues, createLaneQueues } from '../../src/queue/lanes.js';
import { postbackBody } from '../support/fixtures.js';
import { waitFor } from '../support/paymirror.js';
import { createTestQueuePrefix, useTestDatabase } from '../support/services.js';
import { describeStuckRows } from '../support/stuckRows.js';

// The fleet test's failure message: it must say which process holds a stuck row's job, and what
// the database's sessions wait on, or a failure seen once on another machine says nothing.
const test = useTestDatabase();
const queue = createTestQueuePrefix();
const lanes = createLaneQueues({ url: queue.redisUrl }, () => queue.prefix);
afterAll(async () => {
  await closeLaneQueues(lanes);
  await queue.drop();
});

describe('the stuck-row diagnosis', () => {
  it('names the process whose worker holds an active job, and a session left in a transaction', async () => {
    const sql = test().database.sql;
    const payload = postbackBody({ id: 7001, status: 'PAGO' });
    const stored = await storeDelivery(
      sql,
      buildDelivery({
        channel: 'postback',
        rawBody: Buffer.from(JSON.stringify(payload)),
        payload,
        headers: {},
        sourceAddress: null,
      }),
      { dedupeWindowHours: 24 },
    );
    await enqueueNotifications(lanes.signed, [stored.id], { attempts: 1, backoffMs: 100 });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = new Worker(lanes.signed.name, () => held, {
      connection: { url: queue.redisUrl, maxRetriesPerRequest: null },
      prefix: queue.prefix,
    });
    const output = `{"level":30,"workerId":"${worker.id}","msg":"lane worker started"}\n`;
    const reserved = await sql.reserve();
    try {
      await reserved`begin`;
      await reserved`select id from inbox_events where id = ${stored.id} for update`;
      await waitFor(async () => ((await lanes.signed.getActiveCount()) === 1 ? true : undefined), {
        what: 'the job active',
        timeoutMs: 10_000,
      });
      const diagnosis = JSON.parse(
        await describeStuckRows(sql, lanes, [
          { name: 'worker-1', output: () => output },
          { name: 'worker-2', output: () => '' },
        ]),
      ) as {
        rows: { id: number; jobs: { signed?: { state: string; lock: string } } }[];
        sessions: { state: string; transactionSeconds: number }[];
      };
      expect(diagnosis.rows).toEqual([
        expect.objectContaining({
          id: stored.id,
          jobs: { signed: expect.objectContaining({ state: 'active', lock: 'worker-1' }) },
        }),
      ]);
      expect(diagnosis.sessions).toContainEqual(
        expect.objectContaining({ state: 'idle in transaction' }),
      );
    } finally {
      await reserved`rollback`.catch(() => undefined);
      reserved.release();
      release();
      await worker.close();
    }
  });
});
