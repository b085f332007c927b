import { decideSale, type SaleFacts } from '../domain/saleMachine.js';
import { sameWithdrawalOutcome } from '../domain/withdrawalMachine.js';
import { recordKey, type MirrorInput, type NoticeInput } from '../mirror/inputs.js';
import type { Channel, Notice } from '../notifications/notification.js';
import type { GatewayRead, RecordRef } from './gatewayReads.js';
import type { InboxRow } from './inboxRows.js';

/**
 * The one answer to "does this row need a GET first?": with gateway keys, every unsigned
 * webhook (it is a hint), and a signed postback whose move is on a cycle (PAGO↔MED,
 * PAGO↔CHARGEBACK), where a late delivery and a real move look alike. `mirror` is the sale's
 * row as last seen (undefined when not looked up: a postback then finds out under the lock).
 */
export function readNeeded(
  channel: Channel,
  notice: Notice,
  gatewayConfigured: boolean,
  mirror?: SaleFacts | null,
): RecordRef | null {
  if (!gatewayConfigured) return null;
  const ref = { resource: notice.kind, id: notice.id };
  if (channel === 'webhook') return ref;
  if (notice.kind !== 'sale' || !mirror) return null;
  return decideSale(mirror, notice).kind === 'confirm' ? ref : null;
}

/** What the worker does with one pending row. */
export type RowPlan =
  | { readonly kind: 'quarantined'; readonly reason: string }
  /** It needs a gateway read this path has not done: the confirmation path takes it. */
  | { readonly kind: 'forward' }
  /** Its read failed: the job fails and retries with backoff. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** The gateway does not know the record, or it is not ours: nothing changes. */
  | { readonly kind: 'forged'; readonly detail: string }
  /** An unconfirmable webhook kept out of the mirror (UNCONFIRMED_WEBHOOKS=hold). */
  | { readonly kind: 'held' }
  | {
      readonly kind: 'apply';
      readonly notice: Notice;
      readonly inputs: readonly MirrorInput[];
      /** A webhook whose status the gateway did not confirm. */
      readonly contradicted: boolean;
      /**
       * A webhook some of whose claims (status, amount, a sale's fee) the read did not confirm:
       * it gives back its dedupe key, so the gateway's own delivery of the event is processed.
       */
      readonly releaseKey: boolean;
    };

export interface RowPlanOptions {
  readonly gatewayConfigured: boolean;
  /** Without gateway keys: store webhooks without applying them. */
  readonly holdUnconfirmable: boolean;
  /** The reads done for this batch, by recordKey. */
  readonly reads: ReadonlyMap<string, GatewayRead>;
  /**
   * Webhooks whose read may have begun before they were received (a read in flight they joined,
   * or one a webhook received earlier waited for): it may confirm them; anything else it says
   * is about an earlier moment, and they are read again.
   */
  readonly confirmOnly: ReadonlySet<number>;
}

/** The mirror inputs of a row: its notice with the provenance its channel and read give it. */
export function planRow(row: InboxRow, options: RowPlanOptions): RowPlan {
  if (!row.parsed.ok) return { kind: 'quarantined', reason: row.parsed.reason };
  const { notice } = row.parsed;
  const context = { source: row.channel, inboxEventId: row.id };
  const base = { kind: 'notice', notice, observedAt: row.receivedAt, context } as const;
  const read = options.reads.get(recordKey(notice.kind, notice.id));

  if (row.channel === 'postback') {
    if (read?.kind === 'record') {
      const signed: NoticeInput = { ...base, provenance: 'signed', ambiguity: 'read' };
      return {
        kind: 'apply',
        notice,
        contradicted: false,
        releaseKey: false,
        inputs: [signed, readInput(read, row)],
      };
    }
    const ambiguity = options.gatewayConfigured ? 'defer' : 'reconcile';
    const signed: NoticeInput = { ...base, provenance: 'signed', ambiguity };
    return { kind: 'apply', notice, contradicted: false, releaseKey: false, inputs: [signed] };
  }

  if (!options.gatewayConfigured) {
    if (options.holdUnconfirmable) return { kind: 'held' };
    const unverified: NoticeInput = { ...base, provenance: 'unverified', ambiguity: 'reconcile' };
    return { kind: 'apply', notice, contradicted: false, releaseKey: false, inputs: [unverified] };
  }
  if (!read) return { kind: 'forward' };
  if (
    options.confirmOnly.has(row.id) &&
    !(read.kind === 'record' && confirms(read.read.record.status, notice))
  ) {
    return { kind: 'forward' };
  }
  if (read.kind === 'failed') return { kind: 'failed', error: read.error };
  if (read.kind === 'not_ours') {
    return {
      kind: 'forged',
      detail: `gateway answered ${read.httpStatus} for ${notice.kind} ${notice.id}`,
    };
  }
  const confirmed = confirms(read.read.record.status, notice);
  // The read first: once GET answers, status and every field GET returns come from it; the
  // webhook adds only what GET lacks, and only when GET confirms it.
  const webhook: NoticeInput = {
    ...base,
    provenance: confirmed ? 'confirmed' : 'contradicted',
    ambiguity: 'read',
  };
  return {
    kind: 'apply',
    notice,
    contradicted: !confirmed,
    releaseKey: !confirmed || !claimsConfirmed(read.read.record, notice),
    inputs: [readInput(read, row), webhook],
  };
}

/** Whether the read confirms what else the webhook asserts: its amount, and a sale's fee. */
function claimsConfirmed(
  record: Extract<GatewayRead, { kind: 'record' }>['read']['record'],
  notice: Notice,
): boolean {
  if (record.amountCents !== notice.amountCents) return false;
  if (notice.kind !== 'sale' || notice.feeCents === null) return true;
  return 'systemFeeCents' in record && record.systemFeeCents === notice.feeCents;
}

function confirms(gatewayStatus: string, notice: Notice): boolean {
  return notice.kind === 'withdrawal'
    ? sameWithdrawalOutcome(gatewayStatus as Notice['status'] & typeof notice.status, notice.status)
    : gatewayStatus === notice.status;
}

function readInput(read: Extract<GatewayRead, { kind: 'record' }>, row: InboxRow): MirrorInput {
  return {
    kind: 'read',
    ...read.read,
    context: { source: row.channel, inboxEventId: row.id },
    purpose: 'confirmation',
    runId: null,
  } as MirrorInput;
}
