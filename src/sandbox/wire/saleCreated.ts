/**
 * POST /api/sales response (docs/gateway.md 2.3): amount a string of centavos, shipping
 * JSON-encoded.
 */
import type { PaymentMethod, SaleStatus } from '../domain/vocabulary.js';
import type { SaleRecord } from '../domain/records.js';
import { customerForm } from './customer.js';
import type { CustomerForm } from './customer.js';
import { centsString } from './units.js';

export interface SaleCreatedResponse {
  readonly message: string;
  readonly sale: {
    readonly id: number;
    readonly amount: string;
    readonly status: SaleStatus;
    readonly paymentMethod: PaymentMethod;
    readonly customer: CustomerForm;
    readonly payment: {
      readonly method: PaymentMethod;
      readonly installments: number | null;
      readonly pix?: {
        readonly key: string;
        readonly qrCodeBase64: string;
        readonly expiresAt: string | null;
      };
    };
    readonly shipping: string | null;
    readonly createdAt: string;
  };
}

export function saleCreatedResponse(sale: SaleRecord): SaleCreatedResponse {
  const pix = sale.pix;
  return {
    message: 'Sale created successfully',
    sale: {
      id: sale.id,
      amount: centsString(sale.amountCents),
      status: sale.status,
      paymentMethod: sale.paymentMethod,
      customer: customerForm(sale.customer),
      payment: {
        method: sale.paymentMethod,
        installments: sale.installments,
        ...(pix
          ? {
              pix: {
                key: pix.code,
                qrCodeBase64: pix.qrCodeDataUri,
                expiresAt: pix.expiresAt?.toISOString() ?? null,
              },
            }
          : {}),
      },
      shipping: sale.shipping !== null ? JSON.stringify(sale.shipping) : null,
      createdAt: sale.createdAt.toISOString(),
    },
  };
}
