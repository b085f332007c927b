import type { Sql } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { CreateSaleRequest, CreatedSale, GatewayClient } from '../gateway/index.js';
import { writeMirror } from '../mirror/applyToMirror.js';

/**
 * Creates a sale at the gateway (pointing its postbacks at paymirror when `postbackUrl` is
 * given) and writes it to the mirror at once, with source 'api'.
 */
export async function createSale(
  deps: { sql: Sql; gateway: GatewayClient; policy: WatchPolicy },
  request: CreateSaleRequest,
): Promise<CreatedSale> {
  const askedAt = new Date();
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
    pixExpiresAt: sale.pixExpiresAt,
    shipping: sale.shipping,
    items: undefined,
    feeCents: null,
    externalTransactionId: null,
  } as const;
  // The gateway's own answer to our request: authentic, as of when we asked.
  await writeMirror(
    deps.sql,
    [
      {
        kind: 'notice',
        notice,
        provenance: 'api',
        observedAt: askedAt,
        context: { source: 'api', inboxEventId: null },
        ambiguity: 'reconcile',
      },
    ],
    { now: new Date(), policy: deps.policy },
  );
  return sale;
}
