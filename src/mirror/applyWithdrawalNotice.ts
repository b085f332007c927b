import { eq, sql } from 'drizzle-orm';
import { withdrawals } from '../db/schema.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import { decideWithdrawal, type WithdrawalStatus } from '../domain/withdrawalMachine.js';
import type { WithdrawalNotice } from '../notifications/notification.js';
import type { Tx } from '../db/client.js';
import { appendHistory, type ChangeContext } from './history.js';
import { fillMissing } from './fillMissing.js';
import type { MirrorOutcome } from './outcome.js';
import type { Watch } from './applySaleNotice.js';

type WithdrawalRow = typeof withdrawals.$inferSelect;
type WithdrawalUpdate = Partial<typeof withdrawals.$inferInsert>;

/** The withdrawal twin of applySaleNotice: lock, decide, write, append history. */
export async function applyWithdrawalNotice(
  tx: Tx,
  notice: WithdrawalNotice,
  context: ChangeContext,
  watch: Watch,
): Promise<MirrorOutcome> {
  const schedule = {
    nextReconcileAt: nextReconcileAt(
      { resource: 'withdrawal', status: notice.status, createdAt: notice.createdAt ?? watch.now },
      watch.now,
      watch.policy,
    ),
  };
  let current = await lockWithdrawal(tx, notice.id);
  if (!current) {
    const inserted = await tx
      .insert(withdrawals)
      .values({ ...newWithdrawalRow(notice), ...schedule })
      .onConflictDoNothing()
      .returning({ id: withdrawals.id });
    if (inserted.length > 0) {
      await appendHistory(tx, 'withdrawal', notice.id, null, notice.status, context);
      return { outcome: 'applied', from: null, to: notice.status, needsReconcile: false };
    }
    current = await lockWithdrawal(tx, notice.id);
    if (!current) throw new Error(`withdrawal ${notice.id} neither insertable nor lockable`);
  }

  const decision = decideWithdrawal(
    { status: current.status as WithdrawalStatus, gatewayUpdatedAt: current.gatewayUpdatedAt },
    { status: notice.status, updatedAt: notice.updatedAt },
  );
  switch (decision.kind) {
    case 'stale':
      return { outcome: 'stale', reason: decision.reason };
    case 'insert':
      throw new Error('decideWithdrawal returned insert for an existing row');
    case 'noop':
      await updateWithdrawal(tx, notice.id, {
        ...fillMissing(current, newWithdrawalRow(notice)),
        ...newerUpdatedAt(current, notice),
      });
      return { outcome: 'noop' };
    case 'apply':
      await updateWithdrawal(tx, notice.id, {
        ...fillMissing(current, newWithdrawalRow(notice)),
        ...schedule,
        status: notice.status,
        gatewayUpdatedAt: notice.updatedAt,
      });
      await appendHistory(tx, 'withdrawal', notice.id, current.status, notice.status, context);
      return { outcome: 'applied', from: current.status, to: notice.status, needsReconcile: false };
  }
}

async function lockWithdrawal(tx: Tx, id: number): Promise<WithdrawalRow | undefined> {
  const rows = await tx.select().from(withdrawals).where(eq(withdrawals.id, id)).for('update');
  return rows[0];
}

async function updateWithdrawal(tx: Tx, id: number, fields: WithdrawalUpdate): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await tx
    .update(withdrawals)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(withdrawals.id, id));
}

function newWithdrawalRow(notice: WithdrawalNotice): typeof withdrawals.$inferInsert {
  return {
    id: notice.id,
    status: notice.status,
    amountCents: notice.amountCents,
    pixKey: notice.pixKey,
    pixKeyType: notice.pixKeyType,
    externalId: notice.externalId,
    createdAt: notice.createdAt,
    gatewayUpdatedAt: notice.updatedAt,
    processedAt: notice.processedAt,
  };
}

function newerUpdatedAt(current: WithdrawalRow, notice: WithdrawalNotice): WithdrawalUpdate {
  const known = current.gatewayUpdatedAt;
  return known === null || notice.updatedAt > known ? { gatewayUpdatedAt: notice.updatedAt } : {};
}
