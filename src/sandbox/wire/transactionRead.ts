/**
 * GET /api/transactions/{id} (docs/gateway.md 2.2): every sum a number of centavos.
 */
import type { PaymentMethod, SaleStatus } from '../domain/vocabulary.js';
import type { SaleRecord } from '../domain/records.js';
import { customerForm } from './customer.js';
import type { CustomerForm } from './customer.js';

export interface TransactionReadForm {
  readonly id: number;
  readonly status: SaleStatus;
  readonly amount: number;
  readonly netAmount: number;
  readonly systemFee: number;
  readonly reserveAmount: number;
  readonly paymentMethod: PaymentMethod;
  readonly date: string;
  readonly completedAt: string | null;
  readonly customer: CustomerForm;
  readonly items: ReadonlyArray<{
    readonly id: number;
    readonly title: string;
    readonly unitPrice: number;
    readonly quantity: number;
    readonly tangible: boolean;
  }>;
  readonly pixKey: string | null;
  readonly cardLastFour: string | null;
  readonly cardBrand: string | null;
  readonly boletoCode: string | null;
  readonly externalTransactionId: string;
  readonly installments?: number;
  readonly shipping?: Readonly<Record<string, unknown>>;
}

export function transactionReadForm(sale: SaleRecord): TransactionReadForm {
  return {
    id: sale.id,
    status: sale.status,
    amount: sale.amountCents,
    netAmount: sale.netAmountCents,
    systemFee: sale.systemFeeCents,
    reserveAmount: sale.reserveAmountCents,
    paymentMethod: sale.paymentMethod,
    date: sale.createdAt.toISOString(),
    completedAt: sale.completedAt?.toISOString() ?? null,
    customer: customerForm(sale.customer),
    items: sale.items.map((item) => ({
      id: item.id,
      title: item.title,
      unitPrice: item.unitPriceCents,
      quantity: item.quantity,
      tangible: item.tangible,
    })),
    pixKey: sale.pix?.code ?? null,
    cardLastFour: sale.cardLastFour,
    cardBrand: sale.cardBrand,
    boletoCode: sale.boletoCode,
    externalTransactionId: sale.externalTransactionId,
    ...(sale.installments !== null ? { installments: sale.installments } : {}),
    ...(sale.shipping !== null ? { shipping: sale.shipping } : {}),
  };
}
