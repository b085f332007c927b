import type { GatewayTransaction, GatewayWithdrawal } from '../gateway/types.js';
import type { Notice } from '../notifications/notification.js';

/**
 * What may assert a notification's fields (docs/architecture.md, "Provenance"):
 * - signed: an HMAC-signed postback — authentic, a snapshot as of its receipt;
 * - confirmed: a webhook whose status the gateway's GET confirmed (the read comes first);
 * - contradicted: a webhook whose status the GET did not confirm — it writes nothing;
 * - unverified: a webhook with no gateway keys to confirm it (development): applied as
 *   received, filling only what the mirror lacks;
 * - api: the gateway's answer to our own request (a sale we created) — authentic.
 */
export type Provenance = 'signed' | 'confirmed' | 'contradicted' | 'unverified' | 'api';

type HistorySource = 'postback' | 'webhook' | 'reconcile' | 'api';

/** Where a change came from, for status_history and reconciliation_discrepancies. */
export interface ChangeContext {
  readonly source: HistorySource;
  /** Null when the change did not come from a notification. */
  readonly inboxEventId: number | null;
}

export interface NoticeInput<N extends Notice = Notice> {
  readonly kind: 'notice';
  readonly notice: N;
  readonly provenance: Provenance;
  /** When paymirror received the delivery. */
  readonly observedAt: Date;
  readonly context: ChangeContext;
  /**
   * How a move on a cycle (PAGO↔MED, PAGO↔CHARGEBACK) is settled: 'read' — a gateway read
   * follows in the same inputs; 'defer' — leave it for a path that reads first; 'reconcile' —
   * no gateway keys: apply it and ask the reconciler.
   */
  readonly ambiguity: 'read' | 'defer' | 'reconcile';
}

interface ReadInputBase {
  readonly kind: 'read';
  /** When the GET was sent: the answer is the truth as of then. */
  readonly readAt: Date;
  readonly context: ChangeContext;
  /**
   * 'reconcile': a pass (sets last_reconciled_at; a status difference is a discrepancy);
   * 'confirmation': the worker's GET for a notification; 'api': our own request's answer.
   */
  readonly purpose: 'reconcile' | 'confirmation' | 'api';
  /** The pass the discrepancies belong to. */
  readonly runId: number | null;
}

export type ReadInput =
  | (ReadInputBase & { readonly resource: 'sale'; readonly record: GatewayTransaction })
  | (ReadInputBase & { readonly resource: 'withdrawal'; readonly record: GatewayWithdrawal });

/** The gateway answered that the record does not exist, or is not ours (404/403 shape B). */
export interface AbsentInput {
  readonly kind: 'absent';
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
  readonly httpStatus: number;
  readonly runId: number | null;
}

export type MirrorInput = NoticeInput | ReadInput | AbsentInput;

/** What one input did to the mirror. */
export type MirrorResult =
  | {
      readonly outcome: 'applied';
      readonly from: string | null;
      readonly to: string;
      /** An ambiguous move applied without a gateway read: the reconciler settles it. */
      readonly needsReconcile: boolean;
      /**
       * A signed move back into a status the record's history holds, applied without a read:
       * possibly a replayed capture (counted apart).
       */
      readonly unconfirmedReplay?: true;
      readonly differences: number;
    }
  /** Recorded in status_history only: the mirror had already moved past this status. */
  | { readonly outcome: 'observed'; readonly status: string }
  | { readonly outcome: 'noop'; readonly differences: number }
  | { readonly outcome: 'stale'; readonly reason: string }
  /**
   * A read that contradicted a final status a signed postback or a confirmed webhook set:
   * nothing moved, the difference is recorded; `flagged` once reads kept disagreeing.
   */
  | { readonly outcome: 'held'; readonly reason: string; readonly flagged: boolean }
  | { readonly outcome: 'invalid'; readonly reason: string }
  /** A webhook the gateway did not confirm: nothing written; its claims as discrepancies. */
  | { readonly outcome: 'unconfirmed'; readonly reason: string }
  /** An ambiguous move left for a path that reads the gateway first. */
  | { readonly outcome: 'deferred' }
  /** The gateway does not know a record the mirror has; 'absent': neither side has it. */
  | { readonly outcome: 'not_found' | 'absent' };

export function recordKey(resource: 'sale' | 'withdrawal', id: number): string {
  return `${resource}:${id}`;
}
