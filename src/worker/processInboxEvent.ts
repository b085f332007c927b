import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { inboxEvents } from '../db/schema.js';
import { applySaleNotice } from '../mirror/applySaleNotice.js';
import { applyWithdrawalNotice } from '../mirror/applyWithdrawalNotice.js';
import type { MirrorOutcome } from '../mirror/outcome.js';
import type { Channel } from '../notifications/notification.js';
import { parseNotification } from '../notifications/parseNotification.js';

export type ProcessResult =
  | {
      readonly kind: 'done';
      readonly resource: 'sale' | 'withdrawal';
      readonly result: MirrorOutcome;
    }
  | { readonly kind: 'quarantined'; readonly reason: string }
  /** The row was already finished (a re-run job, a sweeper re-enqueue): nothing to do. */
  | { readonly kind: 'skipped'; readonly state: string }
  | { readonly kind: 'missing' };

/**
 * Applies one inbox row in one transaction: lock the inbox row (so a re-delivered job cannot
 * apply it twice), parse, write the mirror, and record the outcome on the inbox row.
 */
export async function processInboxEvent(db: Db, inboxEventId: number): Promise<ProcessResult> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({
        state: inboxEvents.state,
        channel: inboxEvents.channel,
        payload: inboxEvents.payload,
      })
      .from(inboxEvents)
      .where(eq(inboxEvents.id, inboxEventId))
      .for('update');
    const row = rows[0];
    if (!row) return { kind: 'missing' } as const;
    if (row.state !== 'pending') return { kind: 'skipped', state: row.state } as const;

    const channel = row.channel as Channel;
    const parsed = parseNotification(channel, (row.payload ?? {}) as Record<string, unknown>);
    if (!parsed.ok) {
      await finish(tx, inboxEventId, 'quarantined', 'unparseable', parsed.reason);
      return { kind: 'quarantined', reason: parsed.reason } as const;
    }
    const context = { source: channel, inboxEventId };
    const notice = parsed.notice;
    const result =
      notice.kind === 'sale'
        ? await applySaleNotice(tx, notice, context)
        : await applyWithdrawalNotice(tx, notice, context);
    if (result.outcome === 'invalid') {
      await finish(tx, inboxEventId, 'quarantined', 'invalid', result.reason);
    } else {
      await finish(tx, inboxEventId, 'processed', result.outcome, null);
    }
    return { kind: 'done', resource: notice.kind, result } as const;
  });
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
      quarantineReason: reason,
      attempts: sql`${inboxEvents.attempts} + 1`,
      lastError: null,
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
  const message = describeFailure(error);
  await db
    .update(inboxEvents)
    .set({
      attempts: sql`${inboxEvents.attempts} + 1`,
      lastError: message.slice(0, 4000),
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
