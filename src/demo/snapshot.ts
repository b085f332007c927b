/**
 * Reads both sides of the comparison, and sums up the sandbox's delivery log.
 */
import type { Sql } from '../db/client.js';
import type { DeliveryAttemptEntry, SandboxState } from '../sandbox/index.js';
import { inboxTotals, type InboxTotals } from '../inbox/sql/counts.js';
import { recordSummaries } from '../mirror/sql/records.js';
import type { Snapshot } from './compare.js';

/** The sandbox's records: the truth. */
export function truthSnapshot(state: SandboxState, userId: number): Snapshot {
  return {
    sales: [...state.sales.values()]
      .filter((sale) => sale.ownerUserId === userId)
      .map((sale) => ({
        id: sale.id,
        status: sale.status,
        amountCents: sale.amountCents,
        paymentMethod: sale.paymentMethod,
      })),
    withdrawals: [...state.withdrawals.values()]
      .filter((withdrawal) => withdrawal.ownerUserId === userId)
      .map((withdrawal) => ({
        id: withdrawal.id,
        status: withdrawal.status,
        amountCents: withdrawal.amountCents,
      })),
  };
}

/** What the mirror tables say. */
export async function mirrorSnapshot(sql: Sql): Promise<Snapshot> {
  return recordSummaries(sql);
}

export interface DeliverySummary {
  /** Notifications the sandbox produced (a duplicated one counts once). */
  readonly notifications: number;
  /** Deliveries answered 200 (both copies of a duplicate count). */
  readonly delivered: number;
  /** Notifications sent twice. */
  readonly duplicated: number;
  /** Notifications held back and sent after the next one. */
  readonly reordered: number;
  /** Notifications never sent. */
  readonly dropped: number;
  /** Attempts that were not answered 200 and were tried again. */
  readonly retried: number;
  /** Deliveries abandoned after the last attempt. */
  readonly gaveUp: number;
}

export function summarizeDeliveries(entries: readonly DeliveryAttemptEntry[]): DeliverySummary {
  // Deliveries carrying every one of `faults`; both copies of a duplicate carry 'duplicate'.
  const tagged = (...faults: string[]) =>
    new Set(
      entries.filter((e) => faults.every((f) => e.faults.includes(f))).map((e) => e.deliveryId),
    ).size;
  const duplicated = tagged('duplicate') / 2;
  return {
    notifications: new Set(entries.map((e) => e.deliveryId)).size - duplicated,
    delivered: entries.filter((e) => e.outcome === 'delivered').length,
    duplicated,
    reordered: tagged('reorder') - tagged('reorder', 'duplicate') / 2,
    dropped: entries.filter((e) => e.outcome === 'dropped').length,
    retried: entries.filter((e) => e.outcome === 'retrying').length,
    gaveUp: entries.filter((e) => e.outcome === 'gave_up').length,
  };
}

export type InboxSummary = Omit<InboxTotals, 'total'>;

export async function inboxSummary(sql: Sql): Promise<InboxSummary> {
  const { total: _total, ...summary } = await inboxTotals(sql);
  return summary;
}
