import { setTimeout as sleep } from 'node:timers/promises';
import { withSql } from '../lib/services.js';

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
