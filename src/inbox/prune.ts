import type { Sql } from '../db/client.js';
import {
  countOlderThan,
  deleteOldDedupeKeys,
  deleteOldProcessedRows,
  deleteOldRejected,
} from './sql/operator.js';

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
    rejected: await inBatches(batchSize, () => deleteOldRejected(sql, olderThanSeconds, batchSize)),
  };
}

/** Dedupe keys first received longer ago than this (past the window they decide nothing). */
export function pruneDedupeKeys(sql: Sql, olderThanSeconds: number, batchSize = 1000) {
  return inBatches(batchSize, () => deleteOldDedupeKeys(sql, olderThanSeconds, batchSize));
}

/** Processed inbox rows older than this; rows that still need someone are never touched. */
export function pruneProcessedInbox(sql: Sql, olderThanSeconds: number, batchSize = 1000) {
  return inBatches(batchSize, () => deleteOldProcessedRows(sql, olderThanSeconds, batchSize));
}

async function inBatches(batchSize: number, statement: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await statement();
    total += count;
    if (count < batchSize) return total;
  }
}

/** What pruneOld would delete now, counted with the same conditions; deletes nothing. */
export function countPrunable(sql: Sql, olderThanSeconds: number): Promise<PruneSummary> {
  return countOlderThan(sql, olderThanSeconds);
}
