/**
 * The withdrawal machine. The gateway shows only creation (PENDING) and the bank's answer
 * from PROCESSING; the other edges are paymirror's (docs/gateway.md 3.2), minus FAILED, which the
 * sandbox reports (read form) for a REJECTED withdrawal rather than storing as a separate state.
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
