import {
  MoneyError,
  centsFromCentsNumber,
  centsFromCentsString,
  centsFromReaisString,
} from '../domain/money.js';
import type { Cents } from '../domain/money.js';
import { ISO_INSTANT_MESSAGE, parseIsoInstant } from '../domain/isoInstant.js';
import type { CreatedSale, GatewayTransaction, GatewayWithdrawal } from './types.js';
import type { CreatedSaleWire, TransactionWire, WithdrawalWire } from './wireSchemas.js';

/**
 * Wire (docs/gateway.md 2.1–2.3, already shape-checked by wireSchemas.ts) → paymirror's units:
 * integer centavos through src/domain/money.ts, Dates, null for what is absent.
 */

/** A field that passed the schema but not the conversion (an amount like "1.005"). */
export class WireFieldError extends Error {
  override readonly name = 'WireFieldError';
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

function money<T>(field: string, convert: (input: T) => Cents, input: T): Cents {
  try {
    return convert(input);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: the converters of money.ts throw nothing but MoneyError
    if (error instanceof MoneyError) throw new WireFieldError(field, error.message);
    throw error;
  }
}

function optionalMoney(field: string, input: number | null | undefined): Cents | null {
  return input === null || input === undefined ? null : money(field, centsFromCentsNumber, input);
}

/** Checked by the wire schema already; read the same strict way (never Date.parse). */
function date(input: string): Date {
  const instant = parseIsoInstant(input);
  if (!instant) throw new WireFieldError('date', ISO_INSTANT_MESSAGE);
  return instant;
}

/** The create answer's shipping is JSON inside a string; keep the string when it is not JSON. */
export function parseShipping(input: unknown): unknown {
  // Stryker disable next-line ConditionalExpression: null passes the next line unchanged
  if (input === undefined || input === null) return null;
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

export function withdrawalFromWire(wire: WithdrawalWire): GatewayWithdrawal {
  return {
    id: wire.id,
    status: wire.status,
    amountCents: money('amount', centsFromReaisString, wire.amount),
    netAmountCents: money('netAmount', centsFromReaisString, wire.netAmount),
    feeFixedCents: money('fees.fixed', centsFromReaisString, wire.fees.fixed),
    feeVariableCents: money('fees.variable', centsFromReaisString, wire.fees.variable),
    feeTotalCents: money('fees.total', centsFromReaisString, wire.fees.total),
    pixKey: wire.pixKey,
    pixKeyType: wire.pixKeyType,
    createdAt: date(wire.createdAt),
    updatedAt: wire.updatedAt ? date(wire.updatedAt) : null,
  };
}

export function transactionFromWire(wire: TransactionWire): GatewayTransaction {
  return {
    id: wire.id,
    status: wire.status,
    paymentMethod: wire.paymentMethod,
    amountCents: money('amount', centsFromCentsNumber, wire.amount),
    netAmountCents: optionalMoney('netAmount', wire.netAmount),
    systemFeeCents: optionalMoney('systemFee', wire.systemFee),
    reserveAmountCents: optionalMoney('reserveAmount', wire.reserveAmount),
    createdAt: date(wire.date),
    completedAt: wire.completedAt ? date(wire.completedAt) : null,
    customerName: wire.customer?.name ?? null,
    customerEmail: wire.customer?.email ?? null,
    customerDocument: wire.customer?.document ?? null,
    customerPhone: wire.customer?.phone ?? null,
    items: wire.items.map((item, index) => ({
      itemId: item.id,
      title: item.title,
      unitPriceCents: money(`items.${index}.unitPrice`, centsFromCentsNumber, item.unitPrice),
      quantity: item.quantity,
      tangible: item.tangible,
    })),
    pixCode: wire.pixKey ?? null,
    cardLastFour: wire.cardLastFour ?? null,
    cardBrand: wire.cardBrand ?? null,
    boletoCode: wire.boletoCode ?? null,
    externalTransactionId: wire.externalTransactionId ?? null,
    installments: wire.installments ?? null,
    shipping: parseShipping(wire.shipping),
  };
}

export function createdSaleFromWire(wire: CreatedSaleWire): CreatedSale {
  const sale = wire.sale;
  return {
    id: sale.id,
    status: sale.status,
    paymentMethod: sale.paymentMethod,
    amountCents: money('sale.amount', centsFromCentsString, sale.amount),
    createdAt: date(sale.createdAt),
    customerName: sale.customer.name,
    customerEmail: sale.customer.email,
    customerDocument: sale.customer.document ?? null,
    customerPhone: sale.customer.phone ?? null,
    installments: sale.payment.installments ?? null,
    pixCode: sale.payment.pix?.key ?? null,
    pixQrCodeDataUri: sale.payment.pix?.qrCodeBase64 ?? null,
    pixExpiresAt: sale.payment.pix?.expiresAt ? date(sale.payment.pix.expiresAt) : null,
    shipping: parseShipping(sale.shipping),
  };
}
