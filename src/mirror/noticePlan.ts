import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { MirrorOutcome } from './outcome.js';

export interface Watch {
  readonly now: Date;
  readonly policy: WatchPolicy;
}

/** What one notification does to the mirror, once its change is made in memory. */
export interface NoticePlan {
  /** 'deferred': left untouched, for a path that first asks the gateway. */
  readonly outcome: MirrorOutcome | 'deferred';
  /** The status move to record in status_history. */
  readonly moved?: { readonly from: string | null; readonly to: string };
  /** Whether the notification's items (if any) belong in sale_items. */
  readonly items?: boolean;
}
