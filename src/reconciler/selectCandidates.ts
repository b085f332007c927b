import type { Sql } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import { dueRecords, openRecords, type RecordRef } from '../mirror/sql/records.js';

export type PassSelection =
  /** What the scheduler runs: rows the worker marked first, then rows whose check is due. */
  | { readonly kind: 'due'; readonly limit: number }
  /** Every non-final row, PAGO within its watch window included, whatever its next check. */
  | { readonly kind: 'all-open' }
  | { readonly kind: 'sale'; readonly id: number }
  | { readonly kind: 'withdrawal'; readonly id: number };

export type Candidate = RecordRef;

export async function selectCandidates(
  sql: Sql,
  selection: PassSelection,
  policy: WatchPolicy,
): Promise<Candidate[]> {
  switch (selection.kind) {
    case 'sale':
    case 'withdrawal':
      return [{ resource: selection.kind, id: selection.id }];
    case 'due':
      return dueRecords(sql, selection.limit);
    case 'all-open':
      return openRecords(sql, policy);
  }
}
