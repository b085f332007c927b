import { TX_NOW, type TxNow } from '../db/jsonRows.js';
import { nextReconcileAt, type WatchedRecord } from '../domain/reconcileSchedule.js';
import type { FieldDifference } from './compareFields.js';
import type { ReadInput } from './inputs.js';
import type { DiscrepancySource, MirrorWrites } from './mirrorWrites.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';

export interface Watch {
  readonly now: Date;
  readonly policy: WatchPolicy;
}

/** What every planner gets besides the rows: the clock and policy, and the side writes. */
export interface PlanContext {
  readonly watch: Watch;
  readonly writes: MirrorWrites;
}

/** What every write of a gateway answer also sets: the next check, and when it was read. */
export function afterRead(
  record: WatchedRecord,
  input: ReadInput,
  ctx: PlanContext,
): {
  nextReconcileAt: Date | null;
  reconcileRequestedAt: null;
  reconcileReason: null;
  gatewayReadAt: Date;
  lastReconciledAt?: TxNow;
} {
  return {
    nextReconcileAt: nextReconcileAt(record, ctx.watch.now, ctx.watch.policy),
    reconcileRequestedAt: null,
    reconcileReason: null,
    gatewayReadAt: input.readAt,
    ...(input.purpose === 'reconcile' ? { lastReconciledAt: TX_NOW } : {}),
  };
}

/** A stale read settles nothing: the next pass reads the record again, first. */
export const READ_AGAIN = {
  reconcileRequestedAt: TX_NOW,
  reconcileReason: 'a gateway read older than the mirror status',
} as const;

export function laterOf(known: Date | null, observedAt: Date): Date {
  return known !== null && known.getTime() > observedAt.getTime() ? known : observedAt;
}

/** A worker's read confirms a move: that the status changed is no discrepancy. */
export function withoutStatus(differences: readonly FieldDifference[]): FieldDifference[] {
  return differences.filter((difference) => difference.field !== 'status');
}

export function readDiscrepancySource(input: ReadInput): DiscrepancySource {
  return input.purpose === 'reconcile' ? 'reconcile' : 'confirmation';
}
