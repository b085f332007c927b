import type { Sql } from '../db/client.js';
import {
  dueRowsAfter,
  stampDueRows,
  unstampedRows,
  type Cutoff,
  type DueRow,
} from '../inbox/sql/sweep.js';
import type { LaneRow } from '../queue/lanes.js';

export { cutoffOfPass, type Cutoff } from '../inbox/sql/sweep.js';

const toLaneRow = (row: DueRow): LaneRow => ({ id: row.id, channel: row.channel });

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
  const unstamped = await unstampedRows(sql);
  if (unstamped.length > 0) yield unstamped.map(toLaneRow);
  for (let after = '-infinity'; ;) {
    const rows = await dueRowsAfter(sql, after, cutoff, batchSize);
    const last = rows.at(-1)?.enqueuedAt;
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
  const ids = new Set(
    await stampDueRows(
      sql,
      rows.map((row) => row.id),
      cutoff,
    ),
  );
  return rows.filter((row) => ids.has(row.id));
}
