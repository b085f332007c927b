import type { Cents } from '../domain/money.js';
import type { PaymentMethod, SaleStatus } from '../domain/saleMachine.js';
import type { WithdrawalStatus } from '../domain/withdrawalMachine.js';

/**
 * Glossary:
 * - channel: how a notification came in. 'postback' is the HMAC-signed per-sale POST to the
 *   postbackUrl given at sale creation; 'webhook' is the unsigned permanent webhook.
 * - event key: what makes two deliveries the same event (docs/gateway.md 6), per channel.
 * - quarantined: authenticated but not understood; stored for replay, never applied.
 */
export type Channel = 'postback' | 'webhook';

interface SaleItemNotice {
  readonly itemId: number;
  readonly title: string;
  readonly unitPriceCents: Cents;
  readonly quantity: number;
  readonly tangible: boolean;
}

/** A transaction notification in paymirror's units (centavos, Dates). */
export interface SaleNotice {
  readonly kind: 'sale';
  readonly id: number;
  readonly status: SaleStatus;
  readonly paymentMethod: PaymentMethod;
  readonly amountCents: Cents;
  readonly createdAt: Date | null;
  readonly customerName: string | null;
  readonly customerEmail: string | null;
  readonly customerDocument: string | null;
  readonly customerPhone: string | null;
  readonly pixCode: string | null;
  readonly boletoCode: string | null;
  /** Only the answer to paymirror's own sale carries a PIX's expiry. */
  readonly pixExpiresAt?: Date | null;
  /** Parsed delivery info; undefined when the notification said nothing about it. */
  readonly shipping: unknown;
  /** Undefined when the notification carried no item list. */
  readonly items: readonly SaleItemNotice[] | undefined;
  /** Only webhooks carry the fee. */
  readonly feeCents: Cents | null;
  /** Only postbacks carry the processor's id. */
  readonly externalTransactionId: string | null;
}

export interface WithdrawalNotice {
  readonly kind: 'withdrawal';
  readonly id: number;
  readonly status: WithdrawalStatus;
  readonly amountCents: Cents;
  readonly pixKey: string | null;
  readonly pixKeyType: string | null;
  readonly externalId: string | null;
  readonly createdAt: Date | null;
  readonly updatedAt: Date;
  readonly processedAt: Date | null;
}

export type Notice = SaleNotice | WithdrawalNotice;
