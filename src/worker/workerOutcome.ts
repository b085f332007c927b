import { outsideNotificationFormat, type OutsideFormat } from '../notifications/outsideFormat.js';
import type { MirrorResult } from '../mirror/inputs.js';
import type { Notice, SaleNotice } from '../notifications/notification.js';
import type { FinishedRow } from '../inbox/sql/worker.js';

/** The inbox row's `outcome`: what the worker decided about the notification. */
export type WorkerOutcome =
  | 'applied'
  /** Recorded in status_history only: the mirror had already moved past it. */
  | 'observed'
  | 'noop'
  | 'stale'
  | 'invalid'
  /** The gateway does not know the record, or it is not ours. */
  | 'forged'
  /** A webhook whose status the gateway's read did not confirm: it wrote nothing. */
  | 'unconfirmed'
  /** A webhook stored but kept out of the mirror: no keys to confirm it (UNCONFIRMED_WEBHOOKS=hold). */
  | 'held';

export type ProcessResult =
  | {
      readonly kind: 'done';
      readonly resource: 'sale' | 'withdrawal';
      readonly outcome: WorkerOutcome;
      /** Checked against a gateway read. */
      readonly confirmed: boolean;
      readonly needsReconcile: boolean;
      readonly unconfirmedReplay?: true;
      readonly crossChannelDisagreement: boolean;
      readonly detail?: string;
      readonly receivedAt: Date;
      /** The record's id, and a value its notification format does not list (null: none). */
      readonly recordId: number;
      readonly outsideFormat: OutsideFormat | null;
    }
  | { readonly kind: 'quarantined'; readonly reason: string; readonly receivedAt: Date }
  /** The row was already finished (a re-run job, a sweeper re-enqueue): nothing to do. */
  | { readonly kind: 'skipped'; readonly state: string }
  | { readonly kind: 'missing' };

/** What a lane's job ends with: a result, or the row handed to another lane. */
export type LaneResult =
  ProcessResult | { readonly kind: 'forwarded'; readonly to: 'confirmation' | 'unknownIds' };

/** What the worker did with one row's notification, from what its mirror inputs did. */
export interface Applied {
  readonly outcome: WorkerOutcome;
  readonly confirmed: boolean;
  readonly needsReconcile: boolean;
  /** A signed move back into a status already in the record's history, applied unread. */
  readonly unconfirmedReplay?: true;
  readonly detail?: string;
}

/**
 * One row's outcome from its inputs' results (a notice, and maybe the read that settles it):
 * 'deferred' when the row must wait for a gateway read after all.
 */
export function rowOutcome(
  results: readonly MirrorResult[],
  facts: { readonly confirmed: boolean; readonly contradicted: boolean },
): Applied | 'deferred' {
  if (results.some((result) => result.outcome === 'deferred')) return 'deferred';
  const { confirmed } = facts;
  const invalid = results.find((result) => result.outcome === 'invalid');
  if (invalid)
    return { outcome: 'invalid', confirmed, needsReconcile: false, detail: reasonOf(invalid) };
  if (facts.contradicted) {
    const unconfirmed = results.find((result) => result.outcome === 'unconfirmed');
    return {
      outcome: 'unconfirmed',
      confirmed,
      needsReconcile: false,
      detail: reasonOf(unconfirmed),
    };
  }
  const applied = results.filter((result) => result.outcome === 'applied');
  if (applied.length > 0) {
    const needsReconcile = applied.some(
      (result) => result.outcome === 'applied' && result.needsReconcile,
    );
    const replay = applied.some(
      (result) => result.outcome === 'applied' && result.unconfirmedReplay,
    );
    return {
      outcome: 'applied',
      confirmed,
      needsReconcile,
      ...(replay ? { unconfirmedReplay: true } : {}),
    };
  }
  if (results.some((result) => result.outcome === 'observed')) {
    return { outcome: 'observed', confirmed, needsReconcile: false };
  }
  if (results.some((result) => result.outcome === 'noop')) {
    return { outcome: 'noop', confirmed, needsReconcile: false };
  }
  const stale = results.find((result) => result.outcome === 'stale' || result.outcome === 'held');
  return { outcome: 'stale', confirmed, needsReconcile: false, detail: reasonOf(stale) };
}

function reasonOf(result: MirrorResult | undefined): string | undefined {
  return result && 'reason' in result ? result.reason : undefined;
}

/** Only a sale notice the mirror took as authentic is compared with the other channel's. */
export function wantsCrossChannelCheck(notice: Notice, applied: Applied): notice is SaleNotice {
  return (
    notice.kind === 'sale' &&
    applied.outcome !== 'forged' &&
    applied.outcome !== 'invalid' &&
    applied.outcome !== 'unconfirmed'
  );
}

export function finishedRow(id: number, applied: Applied): FinishedRow {
  return applied.outcome === 'invalid'
    ? { id, state: 'quarantined', outcome: 'invalid', reason: applied.detail ?? null }
    : { id, state: 'processed', outcome: applied.outcome, reason: applied.detail ?? null };
}

export function doneResult(
  notice: Notice,
  applied: Applied,
  crossChannelDisagreement: boolean,
  receivedAt: Date,
): ProcessResult {
  return {
    kind: 'done',
    resource: notice.kind,
    crossChannelDisagreement,
    receivedAt,
    recordId: notice.id,
    outsideFormat: outsideNotificationFormat(notice),
    ...applied,
  };
}
