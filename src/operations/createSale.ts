import type { Db } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { CreateSaleRequest, CreatedSale, GatewayClient } from '../gateway/index.js';
import { applyNotices } from '../mirror/applyNotices.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';

/**
 * Creates a sale at the gateway (pointing its postbacks at paymirror when `postbackUrl` is
 * given) and writes it to the mirror at once, with source 'api'.
 */
export async function createSale(
  deps: { db: Db; gateway: GatewayClient; policy: WatchPolicy },
  request: CreateSaleRequest,
): Promise<CreatedSale> {
  const sale = await deps.gateway.createSale(request);
  const notice = {
    kind: 'sale',
    id: sale.id,
    status: sale.status,
    paymentMethod: sale.paymentMethod,
    amountCents: sale.amountCents,
    createdAt: sale.createdAt,
    customerName: sale.customerName,
    customerEmail: sale.customerEmail,
    customerDocument: sale.customerDocument,
    customerPhone: sale.customerPhone,
    pixCode: sale.pixCode,
    boletoCode: null,
    shipping: sale.shipping,
    items: undefined,
    feeCents: null,
    externalTransactionId: null,
  } as const;
  await retryingInsertRaces(() =>
    deps.db.transaction((tx) =>
      applyNotices(
        tx,
        [{ notice, context: { source: 'api', inboxEventId: null } }],
        { now: new Date(), policy: deps.policy },
        { deferConfirm: false },
      ),
    ),
  );
  return sale;
}
