import { reachability } from './reachability.js';

/**
 * The withdrawal status machine (docs/gateway.md 3.2) as data, plus the decision for a
 * notified (or read) status given the mirror's.
 */

export const WITHDRAWAL_STATUSES = [
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'REJECTED',
  'FAILED',
  'CANCELLED',
] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export const WITHDRAWAL_EDGES: Readonly<Record<WithdrawalStatus, readonly WithdrawalStatus[]>> =
  Object.freeze({
    PENDING: Object.freeze(['PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'] as const),
    PROCESSING: Object.freeze(['COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'] as const),
    COMPLETED: Object.freeze([] as const),
    REJECTED: Object.freeze([] as const),
    FAILED: Object.freeze([] as const),
    CANCELLED: Object.freeze([] as const),
  });

export const WITHDRAWAL_FINAL_STATUSES: ReadonlySet<WithdrawalStatus> = new Set(
  WITHDRAWAL_STATUSES.filter((s) => WITHDRAWAL_EDGES[s].length === 0),
);

export function isFinalWithdrawalStatus(status: WithdrawalStatus): boolean {
  return WITHDRAWAL_FINAL_STATUSES.has(status);
}

/** REJECTED (notification form) and FAILED (read form) name the same final failure. */
export function sameWithdrawalOutcome(a: WithdrawalStatus, b: WithdrawalStatus): boolean {
  const canon = (s: WithdrawalStatus) => (s === 'REJECTED' ? 'FAILED' : s);
  return canon(a) === canon(b);
}

/** Statuses reachable from each status in one or more edges. */
const REACH = reachability(WITHDRAWAL_STATUSES, (s) => WITHDRAWAL_EDGES[s]);

export function canReachWithdrawal(from: WithdrawalStatus, to: WithdrawalStatus): boolean {
  return REACH[from].has(to);
}

export type WithdrawalDecision =
  | { kind: 'insert' }
  | { kind: 'apply'; from: WithdrawalStatus; to: WithdrawalStatus }
  | { kind: 'noop' }
  | { kind: 'stale'; reason: string };

export function decideWithdrawal(
  mirror: { status: WithdrawalStatus; gatewayUpdatedAt: Date | null } | null,
  notified: { status: WithdrawalStatus; updatedAt: Date | null },
): WithdrawalDecision {
  if (mirror === null) return { kind: 'insert' };
  const from = mirror.status;
  const to = notified.status;
  const known = mirror.gatewayUpdatedAt;
  // An invalid Date has a NaN time: the comparison is false, so it counts as unknown.
  if (
    known !== null &&
    notified.updatedAt !== null &&
    notified.updatedAt.getTime() < known.getTime()
  ) {
    return { kind: 'stale', reason: `updatedAt older than the mirror's` };
  }
  if (sameWithdrawalOutcome(from, to)) return { kind: 'noop' };
  if (isFinalWithdrawalStatus(from)) return { kind: 'stale', reason: `${from} is final` };
  if (canReachWithdrawal(from, to)) return { kind: 'apply', from, to };
  return { kind: 'stale', reason: `${to} cannot follow ${from}` };
}
