import type { withdrawals } from '../db/schema.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import { decideWithdrawal, type WithdrawalStatus } from '../domain/withdrawalMachine.js';
import type { WithdrawalNotice } from '../notifications/notification.js';
import { fillMissing } from './fillMissing.js';
import type { ChangeOf, MirrorRows } from './mirrorRows.js';
import type { NoticePlan, Watch } from './noticePlan.js';

type WithdrawalRow = typeof withdrawals.$inferSelect;

/** The withdrawal twin of planSaleNotice: insert, merge missing fields, or move. */
export function planWithdrawalNotice(
  rows: MirrorRows<typeof withdrawals>,
  notice: WithdrawalNotice,
  watch: Watch,
): NoticePlan {
  const schedule = {
    nextReconcileAt: nextReconcileAt(
      { resource: 'withdrawal', status: notice.status, createdAt: notice.createdAt ?? watch.now },
      watch.now,
      watch.policy,
    ),
  };
  const current = rows.get(notice.id);
  if (!current) {
    rows.insert(notice.id, { ...newWithdrawalRow(notice), ...schedule });
    return {
      outcome: { outcome: 'applied', from: null, to: notice.status, needsReconcile: false },
      moved: { from: null, to: notice.status },
    };
  }

  const decision = decideWithdrawal(
    { status: current.status as WithdrawalStatus, gatewayUpdatedAt: current.gatewayUpdatedAt },
    { status: notice.status, updatedAt: notice.updatedAt },
  );
  switch (decision.kind) {
    case 'stale':
      return { outcome: { outcome: 'stale', reason: decision.reason } };
    case 'insert':
      throw new Error('decideWithdrawal returned insert for an existing row');
    case 'noop':
      rows.update(notice.id, {
        ...fillMissing(current, newWithdrawalRow(notice)),
        ...newerUpdatedAt(current, notice),
      });
      return { outcome: { outcome: 'noop' } };
    case 'apply':
      rows.update(notice.id, {
        ...fillMissing(current, newWithdrawalRow(notice)),
        ...schedule,
        status: notice.status,
        gatewayUpdatedAt: notice.updatedAt,
      });
      return {
        outcome: {
          outcome: 'applied',
          from: current.status,
          to: notice.status,
          needsReconcile: false,
        },
        moved: { from: current.status, to: notice.status },
      };
  }
}

function newWithdrawalRow(notice: WithdrawalNotice): ChangeOf<typeof withdrawals> {
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

function newerUpdatedAt(
  current: WithdrawalRow,
  notice: WithdrawalNotice,
): ChangeOf<typeof withdrawals> {
  const known = current.gatewayUpdatedAt;
  return known === null || notice.updatedAt > known ? { gatewayUpdatedAt: notice.updatedAt } : {};
}
