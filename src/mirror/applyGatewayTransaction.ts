import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { saleItems, sales } from '../db/schema.js';
import {
  nextReconcileAt,
  type WatchedRecord,
  type WatchPolicy,
} from '../domain/reconcileSchedule.js';
import type { GatewayTransaction } from '../gateway/types.js';
import { compareWithGateway, type FieldDifference } from './compareFields.js';
import { appendHistory, type ChangeContext } from './history.js';

export interface GatewayWriteContext extends ChangeContext {
  /** When the GET was sent: an answer older than the one already written never wins. */
  readonly readAt: Date;
  readonly now: Date;
  readonly policy: WatchPolicy;
  /** True when a reconciliation pass wrote it (sets last_reconciled_at). */
  readonly reconciled: boolean;
}

export type GatewayWriteResult =
  | {
      readonly outcome: 'applied' | 'noop';
      readonly from: string | null;
      readonly to: string;
      readonly differences: FieldDifference[];
    }
  | { readonly outcome: 'stale'; readonly reason: string };

/**
 * Writes the gateway's record of a sale into the mirror (worker confirmation and reconciler
 * alike): status and every field GET returns come from the gateway; `feeCents` only from a
 * webhook (GET lacks it). Locks the row; appends history when the status moves.
 */
export async function applyGatewayTransaction(
  tx: Tx,
  gateway: GatewayTransaction,
  context: GatewayWriteContext & { readonly feeCents?: number | null },
): Promise<GatewayWriteResult> {
  const values = saleValues(gateway, context.feeCents ?? null);
  const schedule = afterGatewayRead(
    {
      resource: 'sale',
      status: gateway.status,
      paymentMethod: gateway.paymentMethod,
      createdAt: gateway.createdAt,
      completedAt: gateway.completedAt,
    },
    context,
  );

  const [current] = await tx.select().from(sales).where(eq(sales.id, gateway.id)).for('update');
  if (!current) {
    const inserted = await tx
      .insert(sales)
      .values({ ...values, ...schedule })
      .onConflictDoNothing()
      .returning({ id: sales.id });
    if (inserted.length === 0) return applyGatewayTransaction(tx, gateway, context);
    await upsertItems(tx, gateway);
    await appendHistory(tx, 'sale', gateway.id, null, gateway.status, context);
    return { outcome: 'applied', from: null, to: gateway.status, differences: [] };
  }
  if (current.gatewayReadAt && current.gatewayReadAt > context.readAt) {
    return { outcome: 'stale', reason: 'a newer gateway answer is already in the mirror' };
  }
  const { update, differences } = compareWithGateway(current, values);
  await tx
    .update(sales)
    .set({ ...update, ...schedule, updatedAt: sql`now()` })
    .where(eq(sales.id, gateway.id));
  await upsertItems(tx, gateway);
  const moved = current.status !== gateway.status;
  if (moved) await appendHistory(tx, 'sale', gateway.id, current.status, gateway.status, context);
  return {
    outcome: moved ? 'applied' : 'noop',
    from: current.status,
    to: gateway.status,
    differences,
  };
}

/** What every write of a gateway answer also sets: the next check, and when it was read. */
export function afterGatewayRead(record: WatchedRecord, context: GatewayWriteContext) {
  return {
    nextReconcileAt: nextReconcileAt(record, context.now, context.policy),
    reconcileRequestedAt: null,
    reconcileReason: null,
    gatewayReadAt: context.readAt,
    ...(context.reconciled ? { lastReconciledAt: context.now } : {}),
  };
}

function saleValues(g: GatewayTransaction, feeCents: number | null): typeof sales.$inferInsert {
  return {
    id: g.id,
    status: g.status,
    paymentMethod: g.paymentMethod,
    amountCents: g.amountCents,
    netAmountCents: g.netAmountCents,
    systemFeeCents: g.systemFeeCents,
    reserveAmountCents: g.reserveAmountCents,
    feeCents,
    installments: g.installments,
    customerName: g.customerName,
    customerEmail: g.customerEmail,
    customerDocument: g.customerDocument,
    customerPhone: g.customerPhone,
    pixCode: g.pixCode,
    boletoCode: g.boletoCode,
    cardLastFour: g.cardLastFour,
    cardBrand: g.cardBrand,
    externalTransactionId: g.externalTransactionId,
    shipping: g.shipping ?? null,
    createdAt: g.createdAt,
    completedAt: g.completedAt,
  };
}

async function upsertItems(tx: Tx, gateway: GatewayTransaction): Promise<void> {
  if (gateway.items.length === 0) return;
  await tx
    .insert(saleItems)
    .values(
      gateway.items.map((item) => ({
        saleId: gateway.id,
        itemId: item.itemId,
        title: item.title,
        unitPriceCents: item.unitPriceCents,
        quantity: item.quantity,
        tangible: item.tangible,
      })),
    )
    .onConflictDoUpdate({
      target: [saleItems.saleId, saleItems.itemId],
      set: {
        title: sql`excluded.title`,
        unitPriceCents: sql`excluded.unit_price_cents`,
        quantity: sql`excluded.quantity`,
        tangible: sql`excluded.tangible`,
      },
    });
}
