import type { SaleInsert, SaleItemInsert, SaleRow } from '../db/rows.js';
import { decideGatewayRead, saleMachineFor } from '../domain/observationOrder.js';
import { decideSale, type PaymentMethod, type SaleStatus } from '../domain/saleMachine.js';
import type { GatewayTransaction } from '../gateway/types.js';
import type { SaleNotice } from '../notifications/notification.js';
import type { Change } from './mirrorRows.js';
import type { Resource } from './resource.js';

/**
 * A sale, for the planner. Postbacks (signed) and webhooks (hints) carry different fields; only
 * a webhook carries `fee`, and it is never written: the read's systemFee is the one fee.
 * A read judges a move by the machine of the sale's payment method.
 */
export const SALE: Resource<SaleRow, SaleNotice, GatewayTransaction> = {
  name: 'sale',

  decideNotice: (current, notice) => decideSale(current ? facts(current) : null, notice),
  decideRead: (current, read, readAt) =>
    decideGatewayRead(
      current
        ? {
            ...facts(current),
            statusObservedAt: current.statusObservedAt,
            gatewayReadAt: current.gatewayReadAt,
            statusSetBy: current.statusSetBy,
          }
        : null,
      { status: read.status, readAt },
      saleMachineFor((current?.paymentMethod ?? read.paymentMethod) as PaymentMethod),
    ),
  sameStatus: (a, b) => a === b,

  noticeValues: (notice): Change<SaleInsert> => ({
    id: notice.id,
    status: notice.status,
    paymentMethod: notice.paymentMethod,
    amountCents: notice.amountCents,
    customerName: notice.customerName,
    customerEmail: notice.customerEmail,
    customerDocument: notice.customerDocument,
    customerPhone: notice.customerPhone,
    pixCode: notice.pixCode,
    boletoCode: notice.boletoCode,
    ...(notice.pixExpiresAt === undefined ? {} : { pixExpiresAt: notice.pixExpiresAt }),
    externalTransactionId: notice.externalTransactionId,
    shipping: notice.shipping ?? null,
    createdAt: notice.createdAt,
  }),
  // Stryker disable next-line ArrowFunction: the planner spreads it, and spreading undefined adds nothing
  sameStatusValues: () => ({}),
  // Stryker disable next-line ArrowFunction: the planner spreads it, and spreading undefined adds nothing
  moveValues: () => ({}),
  // A webhook's `fee` is never written: it is only compared with the read's systemFee.
  webhookOnly: (): Change<SaleInsert> => ({}),
  webhookClaims: (notice): Change<SaleInsert> => ({
    amountCents: notice.amountCents,
    systemFeeCents: notice.feeCents,
  }),
  webhookCorrects: () => false,
  claims: (notice): Change<SaleInsert> => ({
    status: notice.status,
    amountCents: notice.amountCents,
    systemFeeCents: notice.feeCents,
  }),
  noticeItems: (notice) =>
    (notice.items ?? []).map((item): SaleItemInsert => ({
      saleId: notice.id,
      itemId: item.itemId,
      title: item.title,
      unitPriceCents: item.unitPriceCents,
      quantity: item.quantity,
      tangible: item.tangible,
    })),

  /** Every field GET returns; `fee_cents` follows systemFee by itself (a generated column). */
  readValues: (read): SaleInsert => ({
    id: read.id,
    status: read.status,
    paymentMethod: read.paymentMethod,
    amountCents: read.amountCents,
    netAmountCents: read.netAmountCents,
    systemFeeCents: read.systemFeeCents,
    reserveAmountCents: read.reserveAmountCents,
    installments: read.installments,
    customerName: read.customerName,
    customerEmail: read.customerEmail,
    customerDocument: read.customerDocument,
    customerPhone: read.customerPhone,
    pixCode: read.pixCode,
    boletoCode: read.boletoCode,
    cardLastFour: read.cardLastFour,
    cardBrand: read.cardBrand,
    externalTransactionId: read.externalTransactionId,
    shipping: read.shipping ?? null,
    createdAt: read.createdAt,
    completedAt: read.completedAt,
  }),
  // Only a sale in MED or CHARGEBACK holds a reserve: a read without one there clears it.
  readClears: (read) =>
    read.reserveAmountCents === null && read.status !== 'MED' && read.status !== 'CHARGEBACK'
      ? ['reserveAmountCents']
      : [],
  readItems: (read) =>
    read.items.map((item): SaleItemInsert => ({
      saleId: read.id,
      itemId: item.itemId,
      title: item.title,
      unitPriceCents: item.unitPriceCents,
      quantity: item.quantity,
      tangible: item.tangible,
    })),

  watchedNotice: (notice, now) => ({
    resource: 'sale',
    status: notice.status,
    paymentMethod: notice.paymentMethod,
    createdAt: notice.createdAt ?? now,
    completedAt: null,
    pixExpiresAt: notice.pixExpiresAt ?? null,
    boletoCode: notice.boletoCode,
  }),
  watchedRead: (read, current) => ({
    resource: 'sale',
    status: read.status,
    paymentMethod: read.paymentMethod,
    createdAt: read.createdAt,
    completedAt: read.completedAt,
    // The read form has no expiry: what paymirror's own sale was told stays the watch window.
    pixExpiresAt: current?.pixExpiresAt ?? null,
    boletoCode: read.boletoCode ?? current?.boletoCode ?? null,
  }),
};

function facts(row: SaleRow): { status: SaleStatus; paymentMethod: PaymentMethod } {
  return { status: row.status as SaleStatus, paymentMethod: row.paymentMethod as PaymentMethod };
}
