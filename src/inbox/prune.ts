import type { Sql } from '../db/client.js';

export interface PruneSummary {
  readonly inboxRows: number;
  readonly dedupeKeys: number;
  readonly rejected: number;
}

/**
 * Deletes processed inbox rows (and their dedupe keys) and rejected deliveries older than
 * `olderThanSeconds`, in batches so no statement holds locks for long. Never touches the
 * mirror, status_history (its link to a pruned row becomes null) or pending, quarantined or
 * failed rows: those still need someone.
 */
export async function pruneOld(
  sql: Sql,
  olderThanSeconds: number,
  batchSize = 1000,
): Promise<PruneSummary> {
  return {
    dedupeKeys: await pruneDedupeKeys(sql, olderThanSeconds, batchSize),
    inboxRows: await pruneProcessedInbox(sql, olderThanSeconds, batchSize),
    rejected: await pruneRejected(sql, olderThanSeconds, batchSize),
  };
}

/** Dedupe keys first received longer ago than this (past the window they decide nothing). */
export function pruneDedupeKeys(sql: Sql, olderThanSeconds: number, batchSize = 1000) {
  const cutoff = sql`now() - make_interval(secs => ${olderThanSeconds})`;
  return inBatches(
    batchSize,
    () => sql`
    delete from inbox_dedupe_keys where ctid in (
      select ctid from inbox_dedupe_keys where first_received_at < ${cutoff} limit ${batchSize})`,
  );
}

/** Processed inbox rows older than this; rows that still need someone are never touched. */
export function pruneProcessedInbox(sql: Sql, olderThanSeconds: number, batchSize = 1000) {
  const cutoff = sql`now() - make_interval(secs => ${olderThanSeconds})`;
  return inBatches(
    batchSize,
    () => sql`
    delete from inbox_events where id in (
      select id from inbox_events
       where state = 'processed' and coalesce(processed_at, received_at) < ${cutoff}
       order by id limit ${batchSize})`,
  );
}

function pruneRejected(sql: Sql, olderThanSeconds: number, batchSize: number) {
  const cutoff = sql`now() - make_interval(secs => ${olderThanSeconds})`;
  return inBatches(
    batchSize,
    () => sql`
    delete from rejected_deliveries where id in (
      select id from rejected_deliveries where received_at < ${cutoff} order by id limit ${batchSize})`,
  );
}

async function inBatches(
  batchSize: number,
  statement: () => Promise<{ count: number }>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const { count } = await statement();
    total += count;
    if (count < batchSize) return total;
  }
}

/** What pruneOld would delete now, counted with the same conditions; deletes nothing. */
export async function countPrunable(sql: Sql, olderThanSeconds: number): Promise<PruneSummary> {
  const cutoff = sql`now() - make_interval(secs => ${olderThanSeconds})`;
  const [row] = await sql<{ dedupe_keys: number; inbox_rows: number; rejected: number }[]>`
    select
      (select count(*)::int from inbox_dedupe_keys where first_received_at < ${cutoff}) as dedupe_keys,
      (select count(*)::int from inbox_events
        where state = 'processed' and coalesce(processed_at, received_at) < ${cutoff}) as inbox_rows,
      (select count(*)::int from rejected_deliveries where received_at < ${cutoff}) as rejected`;
  return {
    inboxRows: row?.inbox_rows ?? 0,
    dedupeKeys: row?.dedupe_keys ?? 0,
    rejected: row?.rejected ?? 0,
  };
}
