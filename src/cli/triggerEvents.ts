/**
 * The events `paymirror trigger` sends, each the notifications a real record goes through to
 * get there (a refund is PAGO then ESTORNADO), in the wire formats of docs/gateway.md 6.3 and
 * 6.5 (key order included).
 */
export const TRIGGER_EVENTS = {
  'sale.paid': { kind: 'sale', method: 'PIX', steps: ['PAGO'] },
  'sale.refunded': { kind: 'sale', method: 'PIX', steps: ['PAGO', 'ESTORNADO'] },
  'sale.med_opened': { kind: 'sale', method: 'PIX', steps: ['PAGO', 'MED'] },
  'sale.med_won': { kind: 'sale', method: 'PIX', steps: ['PAGO', 'MED', 'PAGO'] },
  'sale.med_lost': { kind: 'sale', method: 'PIX', steps: ['PAGO', 'MED', 'ESTORNADO'] },
  'sale.chargeback': { kind: 'sale', method: 'CREDIT_CARD', steps: ['PAGO', 'CHARGEBACK'] },
  'withdrawal.completed': { kind: 'withdrawal', steps: ['PROCESSING', 'COMPLETED'] },
  'withdrawal.rejected': { kind: 'withdrawal', steps: ['PROCESSING', 'REJECTED'] },
} as const satisfies Record<string, TriggerEvent>;

export type TriggerEvent =
  | {
      readonly kind: 'sale';
      readonly method: 'PIX' | 'CREDIT_CARD';
      readonly steps: readonly string[];
    }
  | { readonly kind: 'withdrawal'; readonly steps: readonly string[] };

export type TriggerEventName = keyof typeof TRIGGER_EVENTS;
export const TRIGGER_EVENT_NAMES = Object.keys(TRIGGER_EVENTS) as TriggerEventName[];

/** A sale of R$ 150,50: one item, a customer with every optional field. */
export const SALE_AMOUNT_CENTS = 15050;
/** A withdrawal of R$ 150,50 (above the 100.00 minimum). */
export const WITHDRAWAL_AMOUNT_REAIS = '150.50';

export interface SaleNotice {
  readonly id: number;
  readonly userId: number;
  readonly status: string;
  readonly method: 'PIX' | 'CREDIT_CARD';
  readonly createdAt: Date;
}

function saleFields(sale: SaleNotice) {
  const amount = String(SALE_AMOUNT_CENTS);
  return {
    id: sale.id,
    userId: sale.userId,
    amount,
    date: sale.createdAt.toISOString(),
    status: sale.status,
    paymentMethod: sale.method,
    customerDocument: '12345678909',
    customerEmail: 'maria.silva@example.com',
    customerName: 'Maria Silva',
    customerPhone: '11987654321',
    pixKey:
      sale.method === 'PIX'
        ? `00020101021226850014br.gov.bcb.pix2563pix.example.com/qr/v2/${sale.id}5204000053039865406150.505802BR6304ABCD`
        : null,
    boletoCode: null,
    shipping: null,
    saleItems: [
      {
        id: sale.id * 10 + 1,
        saleId: sale.id,
        title: 'Curso de fotografia',
        unitPrice: amount,
        quantity: 1,
        tangible: false,
      },
    ],
  };
}

/** The per-sale postback (signed by the caller): no fee, with externalTransactionId. */
export function salePostback(sale: SaleNotice): Record<string, unknown> {
  return { ...saleFields(sale), externalTransactionId: `pay_${sale.id}` };
}

/** The permanent webhook: fee, transactionId and type, unsigned. */
export function saleWebhook(sale: SaleNotice): Record<string, unknown> {
  // The gateway's fee on R$ 150,50: 3.99 % + R$ 0,40.
  const fee = Math.round((SALE_AMOUNT_CENTS * 399) / 10_000) + 40;
  return { ...saleFields(sale), fee, transactionId: sale.id, type: 'TRANSACTION' };
}

export function withdrawalWebhook(withdrawal: {
  readonly id: number;
  readonly userId: number;
  readonly status: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}): Record<string, unknown> {
  const final = withdrawal.status !== 'PROCESSING';
  return {
    id: withdrawal.id,
    userId: withdrawal.userId,
    amount: WITHDRAWAL_AMOUNT_REAIS,
    pixKey: 'maria.silva@example.com',
    pixKeyType: 'EMAIL',
    status: withdrawal.status,
    externalId: `E00000000${withdrawal.id}`,
    createdAt: withdrawal.createdAt.toISOString(),
    updatedAt: withdrawal.updatedAt.toISOString(),
    processedAt: final ? withdrawal.updatedAt.toISOString() : null,
    user: { id: withdrawal.userId, name: 'Loja Exemplo', email: 'financeiro@example.com' },
    type: 'WITHDRAWAL',
  };
}
