import {
  canReachSale,
  isFinalSaleStatus,
  type PaymentMethod,
  type SaleStatus,
} from './saleMachine.js';
import {
  canReachWithdrawal,
  isFinalWithdrawalStatus,
  sameWithdrawalOutcome,
  type WithdrawalStatus,
} from './withdrawalMachine.js';

/**
 * Observation order: every status the mirror holds was observed at some time (a delivery's
 * receipt, a gateway read's start). An observation older than the mirror's may still move the
 * row strictly forward — a move the machine can never undo proves the mirror's status came
 * first — but never around a cycle (PAGO↔MED, PAGO↔CHARGEBACK), where an old observation and a
 * new move look alike. See docs/architecture.md, "Provenance".
 */
export interface StatusMachine<S extends string> {
  /** `to` can follow `from` in one or more edges. */
  readonly canReach: (from: S, to: S) => boolean;
  /** Two names of one status (a withdrawal's REJECTED and FAILED). */
  readonly same: (a: S, b: S) => boolean;
  /** No move leaves it. */
  readonly isFinal: (status: S) => boolean;
}

export function saleMachineFor(method: PaymentMethod): StatusMachine<SaleStatus> {
  return {
    canReach: (from, to) => canReachSale(method, from, to),
    same: (a, b) => a === b,
    isFinal: isFinalSaleStatus,
  };
}

export const WITHDRAWAL_MACHINE: StatusMachine<WithdrawalStatus> = {
  canReach: canReachWithdrawal,
  same: sameWithdrawalOutcome,
  isFinal: isFinalWithdrawalStatus,
};

/** What set a record's status. 'signed' and 'confirmed' are authentic observations. */
export type StatusSetBy = 'signed' | 'confirmed' | 'read' | 'unverified' | 'api';

/** A status a signed postback or a webhook the gateway confirmed set. */
export function isAuthenticObservation(setBy: string | null): boolean {
  return setBy === 'signed' || setBy === 'confirmed';
}

/** `to` follows `from`, and `from` can never follow `to` again. */
export function isStrictlyForward<S extends string>(
  machine: StatusMachine<S>,
  from: S,
  to: S,
): boolean {
  return machine.canReach(from, to) && !machine.canReach(to, from);
}

/** True when `observedAt` is older than what the mirror's status was observed at. */
export function isOlderThan(observedAt: Date, mirrorObservedAt: Date | null): boolean {
  return mirrorObservedAt !== null && observedAt.getTime() < mirrorObservedAt.getTime();
}

/**
 * True when a read that began at `readAt` may not have seen the mirror's status, observed at
 * `mirrorObservedAt`: it began earlier, or in the same millisecond (times are read to the
 * millisecond, and which of the two came first cannot be told).
 */
function mayPrecede(readAt: Date, mirrorObservedAt: Date | null): boolean {
  return mirrorObservedAt !== null && readAt.getTime() <= mirrorObservedAt.getTime();
}

export interface MirrorStatusFacts<S extends string> {
  readonly status: S;
  /** When the mirror's status was observed; null for rows older than observation times. */
  readonly statusObservedAt: Date | null;
  /** When the last gateway answer written to the row was requested. */
  readonly gatewayReadAt: Date | null;
  /** What set the status (null or absent: unknown, rows older than the column). */
  readonly statusSetBy?: string | null;
}

export const NEWER_READ_WRITTEN = 'a newer gateway answer is already in the mirror';

export type ReadDecision<S extends string> =
  | { readonly kind: 'insert' }
  /** The gateway's values are written; `move` when its status differs from the mirror's. */
  | { readonly kind: 'write'; readonly move: { readonly from: S; readonly to: S } | null }
  | { readonly kind: 'stale'; readonly reason: string }
  /**
   * The mirror's final status came from an authentic observation and the read says otherwise
   * (a replica or cache behind, a read begun too early): nothing moves; it is recorded and
   * read again, and flagged for an operator if reads keep disagreeing.
   */
  | { readonly kind: 'held'; readonly reason: string };

/**
 * What a gateway answer, requested at `readAt`, does to the mirror. The gateway is the truth,
 * but only as of `readAt`: an answer older than the last one written changes nothing, and one
 * older than the mirror's status (a signed refund applied while the GET was in flight) may
 * only move the row strictly forward. Otherwise the gateway wins, whatever the machine says
 * of the move (the mirror held something the gateway never confirmed), except out of a final
 * status a signed postback or a confirmed webhook set: a read never undoes one.
 */
export function decideGatewayRead<S extends string>(
  mirror: MirrorStatusFacts<S> | null,
  read: { readonly status: S; readonly readAt: Date },
  machine: StatusMachine<S>,
): ReadDecision<S> {
  if (mirror === null) return { kind: 'insert' };
  if (isOlderThan(read.readAt, mirror.gatewayReadAt)) {
    return { kind: 'stale', reason: NEWER_READ_WRITTEN };
  }
  const from = mirror.status;
  const to = read.status;
  if (machine.same(from, to)) return { kind: 'write', move: null };
  if (mayPrecede(read.readAt, mirror.statusObservedAt) && !isStrictlyForward(machine, from, to)) {
    return {
      kind: 'stale',
      reason: `the mirror observed ${from} after this read of ${to} began`,
    };
  }
  if (machine.isFinal(from) && isAuthenticObservation(mirror.statusSetBy ?? null)) {
    return {
      kind: 'held',
      reason: `${from} is final and was observed authentically; the gateway read ${to}`,
    };
  }
  return { kind: 'write', move: { from, to } };
}
