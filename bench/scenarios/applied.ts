import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { withSql, type ScenarioServices } from '../lib/services.js';

/**
 * Waits until a BullMQ queue holds no job waiting or running. Polling the queue costs Redis a
 * few key lookups, where counting pending inbox rows costs Postgres a scan of the pending
 * index's entries, dead ones included (8 ms at 10,000 rows: 8 % of a core at 10 polls a
 * second, taken from the worker under test). The caller then checks the database once.
 */
export async function waitForEmptyQueue(
  services: Pick<ScenarioServices, 'redisUrl' | 'queuePrefix'>,
  queueName: string,
  timeoutMs: number,
): Promise<void> {
  const queue = new Queue(queueName, {
    connection: { url: services.redisUrl },
    prefix: services.queuePrefix,
  });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((count) => count === 0)) return;
      if (Date.now() > deadline) {
        throw new Error(`${queueName}: jobs still queued after ${timeoutMs} ms`);
      }
      await sleep(50);
    }
  } finally {
    await queue.close();
  }
}

/**
 * Polls the inbox until no row is pending (of `channel` only, when given); fails after
 * `timeoutMs`.
 */
export async function waitUntilApplied(
  databaseUrl: string,
  timeoutMs: number,
  channel: 'postback' | null = null,
): Promise<void> {
  await withSql(databaseUrl, async (sql) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await sql<{ pending: string }[]>`
        select count(*) as pending from inbox_events
         where state = 'pending' and (${channel}::text is null or channel = ${channel})`;
      if (Number(row?.pending ?? 0) === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`${row?.pending} inbox rows still pending after ${timeoutMs} ms`);
      }
      await sleep(100);
    }
  });
}
