import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { inboxEvents } from '../db/schema.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import { applyGatewayTransaction } from '../mirror/applyGatewayTransaction.js';
import { applyGatewayWithdrawal } from '../mirror/applyGatewayWithdrawal.js';
import { applySaleNotice } from '../mirror/applySaleNotice.js';
import { applyWithdrawalNotice } from '../mirror/applyWithdrawalNotice.js';
import type { ChangeContext } from '../mirror/history.js';
import type { Channel, Notice } from '../notifications/notification.js';
import { parseNotification } from '../notifications/parseNotification.js';
import { confirmNotice, type Confirmation } from './confirmNotice.js';
import { recordCrossChannelDisagreement } from './crossChannelCheck.js';

export interface ProcessDeps {
  readonly db: Db;
  /** Null without gateway keys: notifications are applied as received. */
  readonly gateway: GatewayClient | null;
  readonly policy: WatchPolicy;
  readonly now?: () => Date;
}

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

/**
 * Applies one inbox row: parse, confirm with the gateway when needed (outside any
 * transaction), then in one transaction lock the inbox row (so a re-delivered job cannot
 * apply it twice), write the mirror and record the outcome.
 */
export async function processInboxEvent(
  deps: ProcessDeps,
  inboxEventId: number,
): Promise<ProcessResult> {
  const now = deps.now ?? (() => new Date());
  const [row] = await deps.db
    .select({
      state: inboxEvents.state,
      channel: inboxEvents.channel,
      payload: inboxEvents.payload,
      receivedAt: inboxEvents.receivedAt,
    })
    .from(inboxEvents)
    .where(eq(inboxEvents.id, inboxEventId));
  if (!row) return { kind: 'missing' };
  if (row.state !== 'pending') return { kind: 'skipped', state: row.state };

  const channel = row.channel as Channel;
  const parsed = parseNotification(channel, (row.payload ?? {}) as Record<string, unknown>);
  const confirmation: Confirmation = parsed.ok
    ? await confirmNotice(deps.db, deps.gateway, channel, parsed.notice, now)
    : { kind: 'none' };

  return deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ state: inboxEvents.state })
      .from(inboxEvents)
      .where(eq(inboxEvents.id, inboxEventId))
      .for('update');
    if (!locked) return { kind: 'missing' } as const;
    if (locked.state !== 'pending') return { kind: 'skipped', state: locked.state } as const;
    if (!parsed.ok) {
      await finish(tx, inboxEventId, 'quarantined', 'unparseable', parsed.reason);
      return { kind: 'quarantined', reason: parsed.reason, receivedAt: row.receivedAt } as const;
    }
    const result = await apply(
      tx,
      parsed.notice,
      confirmation,
      { source: channel, inboxEventId },
      deps,
      now(),
    );
    const crossChannelDisagreement =
      parsed.notice.kind === 'sale' && result.outcome !== 'forged' && result.outcome !== 'invalid'
        ? await recordCrossChannelDisagreement(tx, channel, parsed.notice, inboxEventId)
        : false;
    if (result.outcome === 'invalid') {
      await finish(tx, inboxEventId, 'quarantined', 'invalid', result.detail ?? null);
    } else {
      await finish(tx, inboxEventId, 'processed', result.outcome, result.detail ?? null);
    }
    return {
      kind: 'done',
      resource: parsed.notice.kind,
      crossChannelDisagreement,
      receivedAt: row.receivedAt,
      ...result,
    } as const;
  });
}

export class ConfirmationNeededError extends Error {
  override readonly name = 'ConfirmationNeededError';
  constructor(resource: string, id: number) {
    super(
      `${resource} ${id} moved while its notification was read; retrying to confirm with the gateway`,
    );
  }
}

interface Applied {
  readonly outcome: WorkerOutcome;
  readonly confirmed: boolean;
  readonly needsReconcile: boolean;
  readonly detail?: string;
}

async function apply(
  tx: Tx,
  notice: Notice,
  confirmation: Confirmation,
  context: ChangeContext,
  deps: ProcessDeps,
  now: Date,
): Promise<Applied> {
  const watch = { now, policy: deps.policy };
  switch (confirmation.kind) {
    case 'forged':
      return {
        outcome: 'forged',
        confirmed: true,
        needsReconcile: false,
        detail: `gateway answered ${confirmation.status} for ${notice.kind} ${notice.id}`,
      };
    case 'sale': {
      const feeCents = notice.kind === 'sale' ? notice.feeCents : null;
      const written = await applyGatewayTransaction(tx, confirmation.record, {
        ...context,
        ...watch,
        readAt: confirmation.readAt,
        reconciled: false,
        feeCents,
      });
      return fromGatewayWrite(written);
    }
    case 'withdrawal': {
      const written = await applyGatewayWithdrawal(tx, confirmation.record, {
        ...context,
        ...watch,
        readAt: confirmation.readAt,
        reconciled: false,
      });
      return fromGatewayWrite(written);
    }
    case 'none': {
      const result =
        notice.kind === 'sale'
          ? await applySaleNotice(tx, notice, context, watch)
          : await applyWithdrawalNotice(tx, notice, context, watch);
      if (result.outcome === 'applied' && result.needsReconcile && deps.gateway) {
        // The row moved between the unlocked look that said "no GET needed" and the lock:
        // roll back and let the retry confirm it with the gateway.
        throw new ConfirmationNeededError(notice.kind, notice.id);
      }
      return {
        outcome: result.outcome,
        confirmed: false,
        needsReconcile: result.outcome === 'applied' && result.needsReconcile,
        ...('reason' in result ? { detail: result.reason } : {}),
      };
    }
  }
}

function fromGatewayWrite(written: Awaited<ReturnType<typeof applyGatewayTransaction>>): Applied {
  return written.outcome === 'stale'
    ? { outcome: 'stale', confirmed: true, needsReconcile: false, detail: written.reason }
    : { outcome: written.outcome, confirmed: true, needsReconcile: false };
}

async function finish(
  tx: Tx,
  id: number,
  state: 'processed' | 'quarantined',
  outcome: string,
  reason: string | null,
): Promise<void> {
  await tx
    .update(inboxEvents)
    .set({
      state,
      outcome,
      quarantineReason: state === 'quarantined' ? reason : null,
      lastError: state === 'processed' ? reason : null,
      attempts: sql`${inboxEvents.attempts} + 1`,
      processedAt: sql`now()`,
    })
    .where(eq(inboxEvents.id, id));
}

/** Records a failed attempt; after the last one the row is `failed` with its error kept. */
export async function recordFailedAttempt(
  db: Db,
  inboxEventId: number,
  error: unknown,
  final: boolean,
): Promise<void> {
  await db
    .update(inboxEvents)
    .set({
      attempts: sql`${inboxEvents.attempts} + 1`,
      lastError: describeFailure(error).slice(0, 4000),
      ...(final ? { state: 'failed', outcome: 'error', processedAt: sql`now()` } : {}),
    })
    .where(sql`${inboxEvents.id} = ${inboxEventId} and ${inboxEvents.state} = 'pending'`);
}

/** Drizzle wraps driver errors in "Failed query: …"; the cause is what a person needs. */
function describeFailure(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? `${current.name}: ${current.message}` : String(current);
}
