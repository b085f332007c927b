import type { Cents } from '../domain/money.js';
import type { PaymentMethod, SaleStatus } from '../domain/saleMachine.js';
import type { WithdrawalStatus } from '../domain/withdrawalMachine.js';

/**
 * The gateway's records in paymirror's units (centavos, Dates), as the client returns them.
 * The wire formats (docs/gateway.md 2.1–2.3) stay inside src/gateway.
 */
export interface GatewayTransaction {
  readonly id: number;
  readonly status: SaleStatus;
  readonly paymentMethod: PaymentMethod;
  readonly amountCents: Cents;
  readonly netAmountCents: Cents | null;
  readonly systemFeeCents: Cents | null;
  readonly reserveAmountCents: Cents | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly customerName: string | null;
  readonly customerEmail: string | null;
  readonly customerDocument: string | null;
  readonly customerPhone: string | null;
  readonly items: readonly {
    readonly itemId: number;
    readonly title: string;
    readonly unitPriceCents: Cents;
    readonly quantity: number;
    readonly tangible: boolean;
  }[];
  /** The PIX copy-and-paste code (the read form calls it pixKey). */
  readonly pixCode: string | null;
  readonly cardLastFour: string | null;
  readonly cardBrand: string | null;
  readonly boletoCode: string | null;
  readonly externalTransactionId: string | null;
  readonly installments: number | null;
  readonly shipping: unknown;
}

export interface GatewayWithdrawal {
  readonly id: number;
  /** The read form says FAILED where notifications say REJECTED. */
  readonly status: WithdrawalStatus;
  readonly amountCents: Cents;
  readonly netAmountCents: Cents;
  readonly feeFixedCents: Cents;
  readonly feeVariableCents: Cents;
  readonly feeTotalCents: Cents;
  readonly pixKey: string;
  readonly pixKeyType: string;
  readonly createdAt: Date;
  /** Only the read endpoint carries updatedAt; the cashout answer does not. */
  readonly updatedAt: Date | null;
}

export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

export interface CashoutRequest {
  readonly amountCents: Cents;
  readonly pixKey: string;
  readonly pixKeyType?: PixKeyType;
}

export interface CreateSaleRequest {
  readonly amountCents: Cents;
  readonly paymentMethod: 'PIX' | 'CREDIT_CARD' | 'DEBIT_CARD' | 'BOLETO';
  readonly customer: {
    readonly name: string;
    readonly email: string;
    readonly document?: string;
    readonly phone?: string;
  };
  readonly items: readonly {
    readonly title: string;
    readonly unitPriceCents: Cents;
    readonly quantity: number;
    readonly tangible: boolean;
  }[];
  /** Where the gateway should send this sale's signed postbacks: paymirror's /postbacks. */
  readonly postbackUrl?: string;
  /** Passed through as sent: the spec does not show the rest of the request body. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface CreatedSale {
  readonly id: number;
  readonly status: SaleStatus;
  readonly paymentMethod: PaymentMethod;
  readonly amountCents: Cents;
  readonly createdAt: Date;
  readonly customerName: string;
  readonly customerEmail: string;
  readonly customerDocument: string | null;
  readonly customerPhone: string | null;
  readonly installments: number | null;
  readonly pixCode: string | null;
  readonly pixQrCodeDataUri: string | null;
  readonly pixExpiresAt: Date | null;
  readonly shipping: unknown;
}

export type GatewayEndpoint =
  'getTransaction' | 'getWithdrawal' | 'createSale' | 'requestCashout' | 'checkBaseUrl';

/**
 * What GET /api/transactions/{not a number} said of the base URL: 'ok' (400, the read's own
 * answer to a bad id), 'wrong' (404: no such route, the base path is wrong), 'unchecked'
 * (anything else, or no answer: try again later).
 */
type BaseUrlCheck =
  | { readonly kind: 'ok' }
  | { readonly kind: 'wrong'; readonly status: number; readonly detail: string }
  | { readonly kind: 'unchecked'; readonly detail: string };

export interface GatewayClient {
  /** GET /api/transactions/{id}. Retried on network errors, 429 and 5xx. */
  getTransaction(id: number): Promise<GatewayTransaction>;
  /** GET /api/public/cashout/{id}. Retried on network errors, 429 and 5xx. */
  getWithdrawal(id: number): Promise<GatewayWithdrawal>;
  /** POST /api/sales. Not retried (it would create a second sale). */
  createSale(request: CreateSaleRequest): Promise<CreatedSale>;
  /** POST /api/public/cashout. Never retried automatically: it moves money. */
  requestCashout(request: CashoutRequest): Promise<GatewayWithdrawal>;
  /** GET /api/transactions/{not a number}, sent once: is GATEWAY_BASE_URL the gateway's? */
  checkBaseUrl(): Promise<BaseUrlCheck>;
}
