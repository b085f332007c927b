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
  const cutoff = sql`now() - make_interval(secs => ${olderThanSeconds})`;
  const dedupeKeys = await inBatches(
    () => sql`
    delete from inbox_dedupe_keys where ctid in (
      select ctid from inbox_dedupe_keys where first_received_at < ${cutoff} limit ${batchSize})`,
  );
  const inboxRows = await inBatches(
    () => sql`
    delete from inbox_events where id in (
      select id from inbox_events
       where state = 'processed' and coalesce(processed_at, received_at) < ${cutoff}
       order by id limit ${batchSize})`,
  );
  const rejected = await inBatches(
    () => sql`
    delete from rejected_deliveries where id in (
      select id from rejected_deliveries where received_at < ${cutoff} order by id limit ${batchSize})`,
  );
  return { inboxRows, dedupeKeys, rejected };

  async function inBatches(statement: () => Promise<{ count: number }>): Promise<number> {
    let total = 0;
    for (;;) {
      const { count } = await statement();
      total += count;
      if (count < batchSize) return total;
    }
  }
}
