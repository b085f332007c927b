/**
 * The gateway's enumerations (docs/gateway.md 2 and 3), as zod schemas so that request
 * validation and TypeScript types share one definition.
 */
import { z } from 'zod';

export const saleStatusSchema = z.enum([
  'PENDENTE',
  'EM_PROCESSAMENTO',
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'CHARGEBACK',
  'MED',
]);
export type SaleStatus = z.infer<typeof saleStatusSchema>;

export const paymentMethodSchema = z.enum(['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO']);
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;

export const CARD_METHODS: readonly PaymentMethod[] = ['CREDIT_CARD', 'DEBIT_CARD'];

export function isCardMethod(method: PaymentMethod): boolean {
  return CARD_METHODS.includes(method);
}

/**
 * Withdrawal statuses as the sandbox stores them. REJECTED is the notification name of a
 * bank refusal; the read form calls the same state FAILED (docs/gateway.md 2.1).
 */
export const withdrawalStatusSchema = z.enum([
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'REJECTED',
  'CANCELLED',
]);
export type WithdrawalStatus = z.infer<typeof withdrawalStatusSchema>;

export const pixKeyTypeSchema = z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM']);
export type PixKeyType = z.infer<typeof pixKeyTypeSchema>;

/** Shape A `errorType` values that the cashout endpoint answers (docs/gateway.md 2.4, 7.1). */
export type CashoutErrorType =
  | 'INSUFFICIENT_BALANCE'
  | 'API_WITHDRAWAL_DISABLED_GLOBALLY'
  | 'TRANSFER_NOT_ALLOWED'
  | 'MINIMUM_VALUE'
  | 'MAXIMUM_VALUE'
  | 'GENERAL_ERROR';

/** The 403 reasons a seller account can be configured with (docs/gateway.md 7.1). */
export const cashoutBlockSchema = z.enum([
  'API_WITHDRAWAL_DISABLED_GLOBALLY',
  'TRANSFER_NOT_ALLOWED',
]);
export type CashoutBlock = z.infer<typeof cashoutBlockSchema>;
