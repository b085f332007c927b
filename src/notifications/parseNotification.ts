import type { z } from 'zod';
import {
  centsFromCentsNumber,
  centsFromCentsString,
  centsFromReaisString,
  MoneyError,
} from '../domain/money.js';
import {
  PAYMENT_METHODS,
  SALE_STATUSES,
  type PaymentMethod,
  type SaleStatus,
} from '../domain/saleMachine.js';
import { WITHDRAWAL_STATUSES, type WithdrawalStatus } from '../domain/withdrawalMachine.js';
import { parseIsoInstant } from '../domain/isoInstant.js';
import { InvariantError } from '../lib/invariantError.js';
import { jsonbHolds } from './jsonbSafe.js';
import type { Channel, Notice, SaleNotice, WithdrawalNotice } from './notification.js';
import {
  saleNotificationWire,
  saleWebhookWire,
  withdrawalNotificationWire,
  type SaleNotificationWire,
  type WithdrawalNotificationWire,
} from './wireSchemas.js';

export type ParseResult = { ok: true; notice: Notice } | { ok: false; reason: string };

/** Which resource a delivery describes: postbacks are always sales; webhooks say by `type`. */
export function resourceKindOf(
  channel: Channel,
  body: Record<string, unknown>,
): 'sale' | 'withdrawal' {
  return channel === 'webhook' && body.type === 'WITHDRAWAL' ? 'withdrawal' : 'sale';
}

/**
 * Turns an authenticated JSON object into a notice in paymirror's units, or says why it
 * cannot be understood (the delivery is then quarantined, never dropped).
 */
export function parseNotification(channel: Channel, body: Record<string, unknown>): ParseResult {
  try {
    return resourceKindOf(channel, body) === 'withdrawal'
      ? parseWithdrawal(body)
      : parseSale(body, channel);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: parsing throws nothing but MoneyError
    if (error instanceof MoneyError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** docs/gateway.md 6: `sale:{id}:{status}`; `withdrawal:{id}:{status}:{updatedAt ISO}`. */
export function eventKeyOf(notice: Notice): string {
  return notice.kind === 'sale'
    ? `sale:${notice.id}:${notice.status}`
    : `withdrawal:${notice.id}:${notice.status}:${notice.updatedAt.toISOString()}`;
}

function parseSale(body: Record<string, unknown>, channel: Channel): ParseResult {
  const parsed = (channel === 'webhook' ? saleWebhookWire : saleNotificationWire).safeParse(body);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const wire: SaleNotificationWire = parsed.data;
  if (!isOneOf(SALE_STATUSES, wire.status)) {
    return { ok: false, reason: `unknown sale status ${JSON.stringify(wire.status)}` };
  }
  if (!isOneOf(PAYMENT_METHODS, wire.paymentMethod)) {
    return { ok: false, reason: `unknown payment method ${JSON.stringify(wire.paymentMethod)}` };
  }
  const notice: SaleNotice = {
    kind: 'sale',
    id: wire.id,
    status: wire.status as SaleStatus,
    paymentMethod: wire.paymentMethod as PaymentMethod,
    amountCents: centsFromCentsString(wire.amount),
    createdAt: instant(wire.date),
    customerName: wire.customerName ?? null,
    customerEmail: wire.customerEmail ?? null,
    customerDocument: wire.customerDocument ?? null,
    customerPhone: wire.customerPhone ?? null,
    pixCode: wire.pixKey ?? null,
    boletoCode: wire.boletoCode ?? null,
    shipping: parseShipping(wire.shipping),
    items: wire.saleItems.map((item) => ({
      itemId: item.id,
      title: item.title,
      unitPriceCents: centsFromCentsString(item.unitPrice),
      quantity: item.quantity,
      tangible: item.tangible,
    })),
    feeCents: wire.fee === undefined ? null : centsFromCentsNumber(wire.fee),
    externalTransactionId: wire.externalTransactionId ?? null,
  };
  return { ok: true, notice };
}

function parseWithdrawal(body: Record<string, unknown>): ParseResult {
  const parsed = withdrawalNotificationWire.safeParse(body);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const wire: WithdrawalNotificationWire = parsed.data;
  if (!isOneOf(WITHDRAWAL_STATUSES, wire.status)) {
    return { ok: false, reason: `unknown withdrawal status ${JSON.stringify(wire.status)}` };
  }
  const notice: WithdrawalNotice = {
    kind: 'withdrawal',
    id: wire.id,
    status: wire.status as WithdrawalStatus,
    amountCents: centsFromReaisString(wire.amount),
    pixKey: wire.pixKey ?? null,
    pixKeyType: wire.pixKeyType ?? null,
    externalId: wire.externalId ?? null,
    createdAt: wire.createdAt ? instant(wire.createdAt) : null,
    updatedAt: instant(wire.updatedAt),
    processedAt: wire.processedAt ? instant(wire.processedAt) : null,
  };
  return { ok: true, notice };
}

/**
 * The gateway sends shipping JSON-encoded in a string; keep it structured when it parses into
 * something jsonb can store (else the string itself: never a worker failure).
 */
function parseShipping(value: string | Record<string, unknown> | null | undefined): unknown {
  // Stryker disable next-line ConditionalExpression: the next line returns undefined as it is
  if (value === undefined) return undefined;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: JSON.parse gives null back and throws on a record
  if (value === null || typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  return jsonbHolds(parsed) ? parsed : value;
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
}

/** Checked by the wire schema already; read the same strict way (never Date.parse). */
function instant(value: string): Date {
  const parsed = parseIsoInstant(value);
  if (!parsed) throw new InvariantError(`a date the wire schema let through: ${value}`);
  return parsed;
}
