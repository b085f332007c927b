import type { Sql } from '../db/client.js';
import type { LaneRow } from '../queue/lanes.js';
import type { Channel } from '../notifications/notification.js';
import { InvariantError } from '../lib/invariantError.js';

/**
 * The instant a sweep pass looks before: a pending row last enqueued at or before it is due.
 * Instants travel as Postgres's text and are cast back there. A postgres.js client that drizzle
 * has not configured (the bench's, a script's) sends a timestamptz parameter through a Date,
 * which keeps milliseconds of timestamptz's microseconds: a walk resumed from it would read its
 * last instant again, for good.
 */
export type Cutoff = string & { readonly __cutoff: unique symbol };

export async function cutoffOfPass(sql: Sql, afterSeconds: number): Promise<Cutoff> {
  const [row] = await sql<{ cutoff: string }[]>`
    select (now() - make_interval(secs => ${afterSeconds}))::text as cutoff`;
  if (!row) throw new InvariantError('now() returned no row');
  return row.cutoff as Cutoff;
}

type DueRow = { id: string; channel: Channel; enqueued_at: string | null };

const toLaneRow = (row: DueRow): LaneRow => ({ id: Number(row.id), channel: row.channel });

/**
 * The pending rows due at `cutoff`, in batches, read without a lock or a write: a row whose job
 * still waits is left exactly as it is. Rows never stamped (stored before enqueued_at was set at
 * insert) come first, all at once; then the rest in the pending index's order, a batch being
 * the next `batchSize` rows completed to the end of their last instant, so that the next batch
 * starts strictly after it. Many rows share an instant (one statement stamps them all: an
 * ingress batch, `inbox retry`), and a walk that resumed inside a group would read the whole
 * group again for every batch: the index has no order within an instant.
 */
export async function* dueRowBatches(
  sql: Sql,
  cutoff: Cutoff,
  batchSize: number,
): AsyncGenerator<LaneRow[]> {
  const unstamped = await sql<DueRow[]>`
    select id, channel, null as enqueued_at from inbox_events
     where state = 'pending' and enqueued_at is null order by id`;
  if (unstamped.length > 0) yield unstamped.map(toLaneRow);
  for (let after = '-infinity'; ;) {
    const rows: DueRow[] = await sql<DueRow[]>`
      with next as (
        select enqueued_at from inbox_events
         where state = 'pending' and enqueued_at > ${after}::text::timestamptz
           and enqueued_at <= ${cutoff}::text::timestamptz
         order by enqueued_at limit ${batchSize}
      )
      select id, channel, enqueued_at::text as enqueued_at from inbox_events
       where state = 'pending' and enqueued_at > ${after}::text::timestamptz
         and enqueued_at <= (select max(enqueued_at) from next)
       order by enqueued_at, id`;
    const last = rows.at(-1)?.enqueued_at;
    if (!last) return;
    yield rows.map(toLaneRow);
    after = last;
  }
}

/**
 * Stamps these rows enqueued now, if they are still pending and due: those it returns are this
 * process's to enqueue. A row locked meanwhile is skipped, not waited for: a worker applying it
 * has no need of another job, and another scheduler's claim leaves it no longer due.
 */
export async function claimDueRows(
  sql: Sql,
  rows: readonly LaneRow[],
  cutoff: Cutoff,
): Promise<LaneRow[]> {
  if (rows.length === 0) return [];
  const claimed = await sql<{ id: string }[]>`
    update inbox_events set enqueued_at = now()
     where id in (
       select id from inbox_events
        where id = any(${`{${rows.map((row) => row.id).join(',')}}`}::bigint[])
          and state = 'pending'
          and (enqueued_at is null or enqueued_at <= ${cutoff}::text::timestamptz)
        for update skip locked)
    returning id`;
  const ids = new Set(claimed.map((row) => Number(row.id)));
  return rows.filter((row) => ids.has(row.id));
}
