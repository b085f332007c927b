/**
 * What the sandbox stores. Money is integer centavos; times are Dates. Wire formats
 * (src/sandbox/wire) derive every unit the spec asks for from these.
 */
import type { Cents } from '../../domain/money.js';
import type { PaymentMethod, PixKeyType, SaleStatus, WithdrawalStatus } from './vocabulary.js';

export interface CustomerRecord {
  readonly name: string;
  readonly email: string;
  readonly document: string | null;
  readonly phone: string | null;
}

interface SaleItemRecord {
  readonly id: number;
  readonly title: string;
  readonly unitPriceCents: Cents;
  readonly quantity: number;
  readonly tangible: boolean;
}

export interface PixChargeRecord {
  /** The BR Code ("copia e cola"). */
  readonly code: string;
  readonly qrCodeDataUri: string;
  readonly expiresAt: Date | null;
}

export interface SaleRecord {
  readonly id: number;
  readonly ownerUserId: number;
  status: SaleStatus;
  readonly paymentMethod: PaymentMethod;
  readonly amountCents: Cents;
  readonly netAmountCents: Cents;
  readonly systemFeeCents: Cents;
  reserveAmountCents: Cents;
  readonly customer: CustomerRecord;
  readonly items: readonly SaleItemRecord[];
  readonly pix: PixChargeRecord | null;
  readonly boletoCode: string | null;
  readonly cardLastFour: string | null;
  readonly cardBrand: string | null;
  /** Credit card only; null for every other method. */
  readonly installments: number | null;
  /** Physical products only; null for digital sales. */
  readonly shipping: Readonly<Record<string, unknown>> | null;
  readonly externalTransactionId: string;
  readonly postbackUrl: string | null;
  readonly createdAt: Date;
  completedAt: Date | null;
  updatedAt: Date;
}

export interface WithdrawalRecord {
  readonly id: number;
  readonly ownerUserId: number;
  status: WithdrawalStatus;
  readonly amountCents: Cents;
  readonly netAmountCents: Cents;
  readonly feeFixedCents: Cents;
  readonly feeVariableCents: Cents;
  readonly feeTotalCents: Cents;
  readonly pixKey: string;
  readonly pixKeyType: PixKeyType;
  /** Id at the banking provider, known once the provider has the transfer. */
  externalId: string | null;
  readonly createdAt: Date;
  updatedAt: Date;
  processedAt: Date | null;
}
