/**
 * Transaction notifications (docs/gateway.md 6.3). Both channels share the fields up to saleItems;
 * the permanent webhook adds fee, transactionId and type, the postback adds
 * externalTransactionId. Key order is the order of that table.
 */
import type { PaymentMethod, SaleStatus } from '../domain/vocabulary.js';
import type { SaleRecord } from '../domain/records.js';
import { centsString } from './units.js';

interface TransactionNotificationCommon {
  readonly id: number;
  readonly userId: number;
  readonly amount: string;
  readonly date: string;
  readonly status: SaleStatus;
  readonly paymentMethod: PaymentMethod;
  readonly customerDocument?: string;
  readonly customerEmail: string;
  readonly customerName: string;
  readonly customerPhone?: string;
  readonly pixKey: string | null;
  readonly boletoCode: string | null;
  readonly shipping: string | null;
  readonly saleItems: ReadonlyArray<{
    readonly id: number;
    readonly saleId: number;
    readonly title: string;
    readonly unitPrice: string;
    readonly quantity: number;
    readonly tangible: boolean;
  }>;
}

export interface WebhookTransactionNotification extends TransactionNotificationCommon {
  readonly fee: number;
  readonly transactionId: number;
  readonly type: 'TRANSACTION';
}

export interface PostbackTransactionNotification extends TransactionNotificationCommon {
  readonly externalTransactionId: string;
}

function commonFields(sale: SaleRecord): TransactionNotificationCommon {
  return {
    id: sale.id,
    userId: sale.ownerUserId,
    amount: centsString(sale.amountCents),
    date: sale.createdAt.toISOString(),
    status: sale.status,
    paymentMethod: sale.paymentMethod,
    ...(sale.customer.document !== null ? { customerDocument: sale.customer.document } : {}),
    customerEmail: sale.customer.email,
    customerName: sale.customer.name,
    ...(sale.customer.phone !== null ? { customerPhone: sale.customer.phone } : {}),
    pixKey: sale.pix?.code ?? null,
    boletoCode: sale.boletoCode,
    shipping: sale.shipping !== null ? JSON.stringify(sale.shipping) : null,
    saleItems: sale.items.map((item) => ({
      id: item.id,
      saleId: sale.id,
      title: item.title,
      unitPrice: centsString(item.unitPriceCents),
      quantity: item.quantity,
      tangible: item.tangible,
    })),
  };
}

export function webhookTransactionNotification(sale: SaleRecord): WebhookTransactionNotification {
  return {
    ...commonFields(sale),
    fee: sale.systemFeeCents,
    transactionId: sale.id,
    type: 'TRANSACTION',
  };
}

export function postbackTransactionNotification(sale: SaleRecord): PostbackTransactionNotification {
  return { ...commonFields(sale), externalTransactionId: sale.externalTransactionId };
}
