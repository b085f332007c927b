import { eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { saleItems, sales } from '../db/schema.js';
import { nextReconcileAt, type WatchPolicy } from '../domain/reconcileSchedule.js';
import { decideSale, type PaymentMethod, type SaleStatus } from '../domain/saleMachine.js';
import type { SaleNotice } from '../notifications/notification.js';
import type { Tx } from '../db/client.js';
import { appendHistory, type ChangeContext } from './history.js';
import { fillMissing } from './fillMissing.js';
import type { MirrorOutcome } from './outcome.js';

type SaleRow = typeof sales.$inferSelect;
type SaleUpdate = PgUpdateSetSource<typeof sales>;

/**
 * Applies a sale notification to the mirror inside the caller's transaction: lock the row
 * (or insert it, then lock), decide with the state machine, write fields, items and history.
 */
export interface Watch {
  readonly now: Date;
  readonly policy: WatchPolicy;
}

export async function applySaleNotice(
  tx: Tx,
  notice: SaleNotice,
  context: ChangeContext,
  watch: Watch,
): Promise<MirrorOutcome> {
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
  let current = await lockSale(tx, notice.id);
  if (!current) {
    const first = decideSale(null, notice);
    if (first.kind === 'invalid') return { outcome: 'invalid', reason: first.reason };
    const inserted = await tx
      .insert(sales)
      .values({ ...newSaleRow(notice), ...schedule })
      .onConflictDoNothing()
      .returning({ id: sales.id });
    if (inserted.length > 0) {
      await insertMissingItems(tx, notice);
      await appendHistory(tx, 'sale', notice.id, null, notice.status, context);
      return { outcome: 'applied', from: null, to: notice.status, needsReconcile: false };
    }
    // Another transaction inserted it between our lock attempt and our insert.
    current = await lockSale(tx, notice.id);
    if (!current) throw new Error(`sale ${notice.id} neither insertable nor lockable`);
  }

  const decision = decideSale(
    { status: current.status as SaleStatus, paymentMethod: current.paymentMethod as PaymentMethod },
    notice,
  );
  switch (decision.kind) {
    case 'invalid':
      return { outcome: 'invalid', reason: decision.reason };
    case 'stale':
      return { outcome: 'stale', reason: decision.reason };
    case 'insert':
      throw new Error('decideSale returned insert for an existing row');
    case 'noop':
      await updateSale(tx, notice.id, fillMissing(current, newSaleRow(notice)));
      await insertMissingItems(tx, notice);
      return { outcome: 'noop' };
    case 'apply':
    case 'confirm': {
      // A confirm we cannot check yet (no gateway keys) is applied and handed to the
      // reconciler at once: the gateway's GET settles which of the two moves was real.
      const needsReconcile = decision.kind === 'confirm';
      await updateSale(tx, notice.id, {
        ...fillMissing(current, newSaleRow(notice)),
        ...schedule,
        status: notice.status,
        ...(needsReconcile
          ? {
              reconcileRequestedAt: sql`now()`,
              reconcileReason: 'ambiguous move applied unconfirmed',
            }
          : {}),
      });
      await insertMissingItems(tx, notice);
      await appendHistory(tx, 'sale', notice.id, current.status, notice.status, context);
      return { outcome: 'applied', from: current.status, to: notice.status, needsReconcile };
    }
  }
}

async function lockSale(tx: Tx, id: number): Promise<SaleRow | undefined> {
  const rows = await tx.select().from(sales).where(eq(sales.id, id)).for('update');
  return rows[0];
}

async function updateSale(tx: Tx, id: number, fields: SaleUpdate): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await tx
    .update(sales)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(sales.id, id));
}

function newSaleRow(notice: SaleNotice): typeof sales.$inferInsert {
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

async function insertMissingItems(tx: Tx, notice: SaleNotice): Promise<void> {
  if (!notice.items || notice.items.length === 0) return;
  await tx
    .insert(saleItems)
    .values(
      notice.items.map((item) => ({
        saleId: notice.id,
        itemId: item.itemId,
        title: item.title,
        unitPriceCents: item.unitPriceCents,
        quantity: item.quantity,
        tangible: item.tangible,
      })),
    )
    .onConflictDoNothing();
}
