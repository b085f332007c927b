import type { sales } from '../db/schema.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import { decideSale, type PaymentMethod, type SaleStatus } from '../domain/saleMachine.js';
import type { SaleNotice } from '../notifications/notification.js';
import { fillMissing } from './fillMissing.js';
import { TX_NOW } from '../db/jsonRows.js';
import type { ChangeOf, MirrorRows } from './mirrorRows.js';
import type { NoticePlan, Watch } from './noticePlan.js';

/**
 * Decides what a sale notification does to the (locked) mirror and makes the change in
 * `rows`: insert a new row, merge missing fields, or move the status. `deferConfirm`: a move
 * on a cycle (PAGO↔MED, PAGO↔CHARGEBACK) is left for a gateway GET instead of applied.
 */
export function planSaleNotice(
  rows: MirrorRows<typeof sales>,
  notice: SaleNotice,
  watch: Watch,
  deferConfirm: boolean,
): NoticePlan {
  const schedule = {
    nextReconcileAt: nextReconcileAt(
      {
        resource: 'sale',
        status: notice.status,
        paymentMethod: notice.paymentMethod,
        createdAt: notice.createdAt ?? watch.now,
        completedAt: null,
      },
      watch.now,
      watch.policy,
    ),
  };
  const current = rows.get(notice.id);
  if (!current) {
    const first = decideSale(null, notice);
    if (first.kind === 'invalid') return { outcome: { outcome: 'invalid', reason: first.reason } };
    rows.insert(notice.id, { ...newSaleRow(notice), ...schedule });
    return {
      outcome: { outcome: 'applied', from: null, to: notice.status, needsReconcile: false },
      moved: { from: null, to: notice.status },
      items: true,
    };
  }

  const decision = decideSale(
    { status: current.status as SaleStatus, paymentMethod: current.paymentMethod as PaymentMethod },
    notice,
  );
  switch (decision.kind) {
    case 'invalid':
      return { outcome: { outcome: 'invalid', reason: decision.reason } };
    case 'stale':
      return { outcome: { outcome: 'stale', reason: decision.reason } };
    case 'insert':
      throw new Error('decideSale returned insert for an existing row');
    case 'noop':
      rows.update(notice.id, fillMissing(current, newSaleRow(notice)));
      return { outcome: { outcome: 'noop' }, items: true };
    case 'apply':
    case 'confirm': {
      if (decision.kind === 'confirm' && deferConfirm) return { outcome: 'deferred' };
      // A confirm we cannot check (no gateway keys) is applied and handed to the reconciler
      // at once: the gateway's GET settles which of the two moves was real.
      const needsReconcile = decision.kind === 'confirm';
      const fields: ChangeOf<typeof sales> = {
        ...fillMissing(current, newSaleRow(notice)),
        ...schedule,
        status: notice.status,
        ...(needsReconcile
          ? { reconcileRequestedAt: TX_NOW, reconcileReason: 'ambiguous move applied unconfirmed' }
          : {}),
      };
      rows.update(notice.id, fields);
      return {
        outcome: { outcome: 'applied', from: current.status, to: notice.status, needsReconcile },
        moved: { from: current.status, to: notice.status },
        items: true,
      };
    }
  }
}

function newSaleRow(notice: SaleNotice): ChangeOf<typeof sales> {
  return {
    id: notice.id,
    status: notice.status,
    paymentMethod: notice.paymentMethod,
    amountCents: notice.amountCents,
    feeCents: notice.feeCents,
    customerName: notice.customerName,
    customerEmail: notice.customerEmail,
    customerDocument: notice.customerDocument,
    customerPhone: notice.customerPhone,
    pixCode: notice.pixCode,
    boletoCode: notice.boletoCode,
    externalTransactionId: notice.externalTransactionId,
    shipping: notice.shipping ?? null,
    createdAt: notice.createdAt,
  };
}
