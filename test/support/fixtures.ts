import { createHmac } from 'node:crypto';

export const POSTBACK_SECRET = 'test-postback-secret-0123456789';
export const WEBHOOK_TOKEN = 'test-webhook-token-0123456789abc';
export const SELLER_USER_ID = 4242;

export function sign(body: string | Buffer, secret = POSTBACK_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export interface SaleFixture {
  id: number;
  status: string;
  paymentMethod?: string;
  amount?: string;
  [field: string]: unknown;
}

/** A postback as docs/gateway.md 6.3 describes it (externalTransactionId, no fee). */
export function postbackBody(sale: SaleFixture): Record<string, unknown> {
  const { id, status, paymentMethod = 'PIX', amount = '15000', ...rest } = sale;
  return {
    id,
    userId: SELLER_USER_ID,
    amount,
    date: '2026-11-20T10:00:00.000Z',
    status,
    paymentMethod,
    customerName: 'Maria da Silva',
    customerEmail: 'maria@example.com',
    customerDocument: '12345678909',
    customerPhone: '11999998888',
    pixKey: paymentMethod === 'PIX' ? '00020126580014br.gov.bcb.pix0136chave' : null,
    boletoCode: null,
    shipping: null,
    saleItems: [
      { id: 1, saleId: id, title: 'Camiseta', unitPrice: amount, quantity: 1, tangible: true },
    ],
    externalTransactionId: `ext-${id}`,
    ...rest,
  };
}

/** The same notification in the permanent-webhook format (fee, transactionId, type). */
export function webhookSaleBody(sale: SaleFixture): Record<string, unknown> {
  const { externalTransactionId: _omit, ...body } = postbackBody(sale);
  return { ...body, fee: 150, transactionId: sale.id, type: 'TRANSACTION', ...pickExtra(sale) };
}

function pickExtra(sale: SaleFixture): Record<string, unknown> {
  const { id: _i, status: _s, paymentMethod: _p, amount: _a, ...rest } = sale;
  return rest;
}

export function withdrawalBody(w: {
  id: number;
  status: string;
  updatedAt: string;
  amount?: string;
  [field: string]: unknown;
}): Record<string, unknown> {
  const { id, status, updatedAt, amount = '150.50', ...rest } = w;
  return {
    id,
    userId: SELLER_USER_ID,
    amount,
    pixKey: '12345678909',
    pixKeyType: 'CPF',
    status,
    externalId: `bank-${id}`,
    createdAt: '2026-11-20T09:00:00.000Z',
    updatedAt,
    processedAt: null,
    user: { id: SELLER_USER_ID, name: 'Loja', email: 'loja@example.com' },
    type: 'WITHDRAWAL',
    ...rest,
  };
}
