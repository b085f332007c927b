import type { MirrorOutcome } from '../mirror/outcome.js';
import type { Notice, SaleNotice } from '../notifications/notification.js';
import type { FinishedRow } from './finishInboxRows.js';

export type WorkerOutcome = 'applied' | 'noop' | 'stale' | 'invalid' | 'forged';

export type ProcessResult =
  | {
      readonly kind: 'done';
      readonly resource: 'sale' | 'withdrawal';
      readonly outcome: WorkerOutcome;
      readonly confirmed: boolean;
      readonly needsReconcile: boolean;
      readonly crossChannelDisagreement: boolean;
      readonly detail?: string;
      readonly receivedAt: Date;
    }
  | { readonly kind: 'quarantined'; readonly reason: string; readonly receivedAt: Date }
  /** The row was already finished (a re-run job, a sweeper re-enqueue): nothing to do. */
  | { readonly kind: 'skipped'; readonly state: string }
  | { readonly kind: 'missing' };

/** What the worker did with one notification's notice. */
export interface Applied {
  readonly outcome: WorkerOutcome;
  readonly confirmed: boolean;
  readonly needsReconcile: boolean;
  readonly detail?: string;
}

/** A notice applied as received (no gateway GET). */
export function appliedAsReceived(result: MirrorOutcome): Applied {
  return {
    outcome: result.outcome,
    confirmed: false,
    needsReconcile: result.outcome === 'applied' && result.needsReconcile,
    ...('reason' in result ? { detail: result.reason } : {}),
  };
}

/** Only an applied sale notice is compared with the other channel's delivery. */
export function wantsCrossChannelCheck(notice: Notice, applied: Applied): notice is SaleNotice {
  return notice.kind === 'sale' && applied.outcome !== 'forged' && applied.outcome !== 'invalid';
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
  return { kind: 'done', resource: notice.kind, crossChannelDisagreement, receivedAt, ...applied };
}
