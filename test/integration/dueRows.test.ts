import { beforeEach, describe, expect, it } from 'vitest';
import { claimDueRows, cutoffOfPass, dueRowBatches } from '../../src/scheduler/dueRows.js';
import { connectPostgres } from '../../src/db/connect.js';
import { useTestDatabase } from '../support/services.js';

const test = useTestDatabase();

/** Inbox rows as the sweeper sees them: state and enqueued_at are all it reads. */
async function rows(state: string, enqueuedAt: string | null, count: number): Promise<number[]> {
  const inserted = await test().database.sql<{ id: string }[]>`
    insert into inbox_events (channel, event_key, raw_body, body_sha256, headers, state,
                              enqueued_at)
    select 'webhook', 'sale:' || g || ':' || ${state}, '\\x00'::bytea, 'test', '{}'::jsonb,
           ${state},
           case when ${enqueuedAt}::text = 'an hour ago' then now() - interval '1 hour'
                else ${enqueuedAt}::text::timestamptz end
      from generate_series(1, ${count}::int) as g
    returning id`;
  return inserted.map((row) => Number(row.id));
}

describe('the rows a sweep pass finds due', () => {
  beforeEach(async () => {
    await test().database.sql`truncate inbox_events, inbox_dedupe_keys cascade`;
  });

  it('walks every due row once, by when it was last enqueued, an instant never split', async () => {
    const unstamped = await rows('pending', null, 2);
    const distinct: number[] = [];
    for (const second of [1, 2, 3, 4, 5]) {
      distinct.push(...(await rows('pending', `2026-01-01 00:00:0${second}.5+00`, 1)));
    }
    // One statement stamps its rows with one now(), to the microsecond.
    const shared = await rows('pending', 'an hour ago', 7);
    await rows('processed', '2026-01-01 00:00:00+00', 2);
    const [fresh] = await rows('pending', new Date().toISOString(), 1);

    // A client drizzle has not configured (the bench's): postgres.js's own serializer would send
    // a timestamptz parameter through a Date, keeping milliseconds of the microseconds.
    const plain = connectPostgres(test().url, { max: 1, onnotice: () => {} });
    const batches: number[][] = [];
    try {
      const cutoff = await cutoffOfPass(plain, 30);
      for await (const batch of dueRowBatches(plain, cutoff, 2)) {
        batches.push(batch.map((row) => row.id));
        if (batches.length > 10) break; // a walk that does not move, stopped
      }
    } finally {
      await plain.end({ timeout: 5 });
    }
    expect(batches.flat()).toEqual([...unstamped, ...distinct, ...shared]);
    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 2, 8]);
    expect(batches.flat()).not.toContain(fresh);
  });

  it('claims a due row once: a second claim finds it enqueued since', async () => {
    const [id] = await rows('pending', '2026-01-01 00:00:00+00', 1);
    const [done] = await rows('processed', '2026-01-01 00:00:00+00', 1);
    const sql = test().database.sql;
    const cutoff = await cutoffOfPass(sql, 30);
    const due = [
      { id: id!, channel: 'webhook' as const },
      { id: done!, channel: 'webhook' as const },
    ];

    expect(await claimDueRows(sql, due, cutoff)).toEqual([due[0]]);
    expect(await claimDueRows(sql, due, cutoff)).toEqual([]);
  });

  it('skips a row locked by a worker applying it, without waiting', async () => {
    const [id] = await rows('pending', '2026-01-01 00:00:00+00', 1);
    const sql = test().database.sql;
    const cutoff = await cutoffOfPass(sql, 30);
    const due = [{ id: id!, channel: 'webhook' as const }];

    const claimedWhileLocked = await sql.begin(async (tx) => {
      await tx`select id from inbox_events where id = ${id!} for update`;
      return claimDueRows(sql, due, cutoff);
    });
    expect(claimedWhileLocked).toEqual([]);
    expect(await claimDueRows(sql, due, cutoff)).toEqual(due);
  });
});
