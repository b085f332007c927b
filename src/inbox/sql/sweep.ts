import type { Sql } from '../../db/client.js';
import { InvariantError } from '../../lib/invariantError.js';
import type { Channel } from '../../notifications/notification.js';

/** The sweeper's statements on `inbox_events`: pending rows whose job may be gone. */

/**
 * The instant a sweep pass looks before: a pending row last enqueued at or before it is due.
 * Instants travel as Postgres's text and are cast back there: through a JavaScript Date, a
 * timestamptz keeps milliseconds of its microseconds, and a walk resumed from it would read its
 * last instant again, for good.
 */
export type Cutoff = string & { readonly __cutoff: unique symbol };

export async function cutoffOfPass(sql: Sql, afterSeconds: number): Promise<Cutoff> {
  const [row] = await sql<{ cutoff: string }[]>`
    select (now() - make_interval(secs => ${afterSeconds}))::text as cutoff`;
  if (!row) throw new InvariantError('now() returned no row');
  return row.cutoff as Cutoff;
}

export interface DueRow {
  readonly id: number;
  readonly channel: Channel;
  /** As Postgres's text; null for a row never stamped. */
  readonly enqueuedAt: string | null;
}

/** Pending rows never stamped enqueued (stored before enqueued_at was set at insert). */
export async function unstampedRows(sql: Sql): Promise<DueRow[]> {
  const rows = await sql<DueRow[]>`
    select id, channel, null as "enqueuedAt" from inbox_events
     where state = 'pending' and enqueued_at is null order by id`;
  return rows.map(withNumberId);
}

/**
 * The next pending rows due at `cutoff` after the instant `after`: `batchSize` rows completed
 * to the end of their last instant (the index has no order within an instant, and many rows
 * share one), in the pending index's order.
 */
export async function dueRowsAfter(
  sql: Sql,
  after: string,
  cutoff: Cutoff,
  batchSize: number,
): Promise<DueRow[]> {
  const rows = await sql<DueRow[]>`
    with next as (
      select enqueued_at from inbox_events
       where state = 'pending' and enqueued_at > ${after}::text::timestamptz
         and enqueued_at <= ${cutoff}::text::timestamptz
       order by enqueued_at limit ${batchSize}
    )
    select id, channel, enqueued_at::text as "enqueuedAt" from inbox_events
     where state = 'pending' and enqueued_at > ${after}::text::timestamptz
       and enqueued_at <= (select max(enqueued_at) from next)
     order by enqueued_at, id`;
  return rows.map(withNumberId);
}

/**
 * Stamps these rows enqueued now, if they are still pending and due; returns the ids stamped.
 * A row locked meanwhile is skipped, not waited for.
 */
export async function stampDueRows(
  sql: Sql,
  ids: readonly number[],
  cutoff: Cutoff,
): Promise<number[]> {
  const claimed = await sql<{ id: number }[]>`
    update inbox_events set enqueued_at = now()
     where id in (
       select id from inbox_events
        where id = any(${`{${ids.join(',')}}`}::bigint[])
          and state = 'pending'
          and (enqueued_at is null or enqueued_at <= ${cutoff}::text::timestamptz)
        for update skip locked)
    returning id`;
  return claimed.map((row) => Number(row.id));
}

/** A client without paymirror's types (a script's) reads bigint ids as text. */
function withNumberId(row: DueRow): DueRow {
  return { ...row, id: Number(row.id) };
}
