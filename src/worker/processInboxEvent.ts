import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { inboxEvents } from '../db/schema.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/types.js';
import { applyGatewayTransaction } from '../mirror/applyGatewayTransaction.js';
import { applyGatewayWithdrawal } from '../mirror/applyGatewayWithdrawal.js';
import { applyNotices } from '../mirror/applyNotices.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';
import type { ChangeContext } from '../mirror/history.js';
import type { Channel, Notice } from '../notifications/notification.js';
import { parseNotification } from '../notifications/parseNotification.js';
import { confirmNotice, type Confirmation } from './confirmNotice.js';
import { payloadAmount, recordCrossChannelDisagreements } from './crossChannelCheck.js';
import { finishInboxRows } from './finishInboxRows.js';
import {
  appliedAsReceived,
  doneResult,
  finishedRow,
  wantsCrossChannelCheck,
  type Applied,
  type ProcessResult,
} from './workerOutcome.js';

export type { ProcessResult, WorkerOutcome } from './workerOutcome.js';

export interface ProcessDeps {
  readonly db: Db;
  /** Null without gateway keys: notifications are applied as received. */
  readonly gateway: GatewayClient | null;
  readonly policy: WatchPolicy;
  readonly now?: () => Date;
}

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
  const payload = (row.payload ?? {}) as Record<string, unknown>;
  const parsed = parseNotification(channel, payload);
  const confirmation: Confirmation = parsed.ok
    ? await confirmNotice(deps.db, deps.gateway, channel, parsed.notice, now)
    : { kind: 'none' };

  return retryingInsertRaces(() =>
    deps.db.transaction(async (tx): Promise<ProcessResult> => {
      const [locked] = await tx
        .select({ state: inboxEvents.state })
        .from(inboxEvents)
        .where(eq(inboxEvents.id, inboxEventId))
        .for('update');
      if (!locked) return { kind: 'missing' };
      if (locked.state !== 'pending') return { kind: 'skipped', state: locked.state };
      if (!parsed.ok) {
        await finishInboxRows(tx, [
          { id: inboxEventId, state: 'quarantined', outcome: 'unparseable', reason: parsed.reason },
        ]);
        return { kind: 'quarantined', reason: parsed.reason, receivedAt: row.receivedAt };
      }
      const { notice } = parsed;
      const context = { source: channel, inboxEventId };
      const applied = await apply(tx, notice, confirmation, context, deps, now());
      const disagreeing = wantsCrossChannelCheck(notice, applied)
        ? await recordCrossChannelDisagreements(tx, [
            { channel, notice, inboxEventId, payloadAmount: payloadAmount(payload) },
          ])
        : new Set<number>();
      await finishInboxRows(tx, [finishedRow(inboxEventId, applied)]);
      return doneResult(notice, applied, disagreeing.size > 0, row.receivedAt);
    }),
  );
}

export class ConfirmationNeededError extends Error {
  override readonly name = 'ConfirmationNeededError';
  constructor(resource: string, id: number) {
    super(
      `${resource} ${id} moved while its notification was read; retrying to confirm with the gateway`,
    );
  }
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
      const [result] = await applyNotices(tx, [{ notice, context }], watch, {
        deferConfirm: deps.gateway !== null,
      });
      if (result === 'deferred') {
        // The row moved between the unlocked look that said "no GET needed" and the lock:
        // roll back and let the retry confirm it with the gateway.
        throw new ConfirmationNeededError(notice.kind, notice.id);
      }
      return appliedAsReceived(result!);
    }
  }
}

function fromGatewayWrite(written: Awaited<ReturnType<typeof applyGatewayTransaction>>): Applied {
  return written.outcome === 'stale'
    ? { outcome: 'stale', confirmed: true, needsReconcile: false, detail: written.reason }
    : { outcome: written.outcome, confirmed: true, needsReconcile: false };
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
