/**
 * The withdrawal machine. The spec shows only creation (PENDING) and the bank's answer from
 * PROCESSING; the other edges are the ones paymirror accepts, minus FAILED, which the sandbox
 * reports (read form) for a REJECTED withdrawal rather than storing as a separate state. Kept
 * apart from paymirror's own (src/domain/withdrawalMachine.ts) on purpose, like the sale
 * machine: test/unit/machinesSideBySide.test.ts holds the two side by side.
 */
import type { WithdrawalStatus } from './vocabulary.js';

export const WITHDRAWAL_EDGES: Readonly<Record<WithdrawalStatus, readonly WithdrawalStatus[]>> = {
  PENDING: ['PROCESSING', 'COMPLETED', 'REJECTED', 'CANCELLED'],
  PROCESSING: ['COMPLETED', 'REJECTED', 'CANCELLED'],
  COMPLETED: [],
  REJECTED: [],
  CANCELLED: [],
};

export type WithdrawalMoveVerdict =
  { readonly kind: 'allowed' } | { readonly kind: 'illegal'; readonly reason: string };

export function judgeWithdrawalMove(
  from: WithdrawalStatus,
  to: WithdrawalStatus,
): WithdrawalMoveVerdict {
  const edges = WITHDRAWAL_EDGES[from];
  if (edges.includes(to)) return { kind: 'allowed' };
  const options =
    edges.length === 0 ? `${from} is final` : `allowed from ${from}: ${edges.join(', ')}`;
  return { kind: 'illegal', reason: `a withdrawal cannot move from ${from} to ${to} (${options})` };
}

/** Moves after which the banking provider's result is known. */
export function isSettledWithdrawalStatus(status: WithdrawalStatus): boolean {
  return status === 'COMPLETED' || status === 'REJECTED' || status === 'CANCELLED';
}
