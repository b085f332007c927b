import {
  MoneyError,
  centsFromCentsNumber,
  centsFromReaisNumber,
  reaisNumberFromCents,
} from '../domain/money.js';
import type { CashoutRequest, CreateSaleRequest } from './types.js';

/**
 * paymirror's requests → the gateway's request bodies (docs/gateway.md 4.1, 4.4). Limits (8) are
 * the gateway's to enforce; only amounts that are not integer centavos are refused here,
 * with a MoneyError, before anything is sent.
 */

/** `{ amount, pixKey, pixKeyType }`, amount a JSON number of reais: 15050 → 150.5. */
export function cashoutBody(request: CashoutRequest): string {
  const amount = reaisNumberFromCents(request.amountCents);
  if (centsFromReaisNumber(amount) !== request.amountCents) {
    throw new MoneyError(request.amountCents, 'not exactly representable as a number of reais');
  }
  return JSON.stringify({
    amount,
    pixKey: request.pixKey,
    pixKeyType: request.pixKeyType,
  });
}

const SALE_FIELDS = new Set(['amount', 'paymentMethod', 'customer', 'items', 'postbackUrl']);

/**
 * `{ amount, paymentMethod, customer, items, postbackUrl?, ...extra }`, amounts in centavos.
 * `extra` passes through what the spec does not show, but never replaces a typed field.
 */
export function saleBody(request: CreateSaleRequest): string {
  const body: Record<string, unknown> = {
    amount: centsFromCentsNumber(request.amountCents),
    paymentMethod: request.paymentMethod,
    customer: {
      name: request.customer.name,
      email: request.customer.email,
      document: request.customer.document,
      phone: request.customer.phone,
    },
    items: request.items.map((item) => ({
      title: item.title,
      unitPrice: centsFromCentsNumber(item.unitPriceCents),
      quantity: item.quantity,
      tangible: item.tangible,
    })),
    postbackUrl: request.postbackUrl,
  };
  for (const [key, value] of Object.entries(request.extra ?? {})) {
    if (!SALE_FIELDS.has(key)) body[key] = value;
  }
  return JSON.stringify(body);
}
