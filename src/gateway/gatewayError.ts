import type { GatewayEndpoint } from './types.js';

/** Which of the gateway's error bodies came back (docs/gateway.md 2.4), if any. */
export type ErrorShape = 'A' | 'B' | 'C' | 'unknown';

export type GatewayErrorKind =
  /** The gateway answered with a non-2xx status. */
  | 'http'
  /** No answer: connection refused, reset, DNS. */
  | 'network'
  /** No answer within the per-call timeout. */
  | 'timeout'
  /** A 2xx whose body does not match the spec. */
  | 'invalid_response';

/** Enough of an answer to diagnose it, not enough to fill a log. */
const RAW_ANSWER_LIMIT = 2000;

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly endpoint: GatewayEndpoint;
  readonly kind: GatewayErrorKind;
  /** HTTP status; null when no answer came. */
  readonly status: number | null;
  readonly shape: ErrorShape | null;
  /** Shape A's errorType (INSUFFICIENT_BALANCE, MINIMUM_VALUE, …). */
  readonly errorType: string | null;
  /** Shape C's error.code (UNAUTHORIZED, FORBIDDEN). */
  readonly code: string | null;
  /** Seconds from a Retry-After header, when one came. */
  readonly retryAfterSeconds: number | null;
  /** The answer's body as received (keys redacted, at most RAW_ANSWER_LIMIT characters). */
  readonly rawAnswer: string | null;
  /**
   * A 404/403 in shape B that may not be read as "not ours" now (the base URL is unchecked, or
   * the breaker paused the classification; see notOursGate): "cannot tell now".
   */
  readonly notOursWithheld: boolean;

  constructor(fields: {
    endpoint: GatewayEndpoint;
    kind: GatewayErrorKind;
    message: string;
    status?: number | null;
    shape?: ErrorShape | null;
    errorType?: string | null;
    code?: string | null;
    retryAfterSeconds?: number | null;
    rawAnswer?: string | null;
    notOursWithheld?: boolean;
    cause?: unknown;
  }) {
    super(fields.message, { cause: fields.cause });
    this.endpoint = fields.endpoint;
    this.kind = fields.kind;
    this.status = fields.status ?? null;
    this.shape = fields.shape ?? null;
    this.errorType = fields.errorType ?? null;
    this.code = fields.code ?? null;
    this.retryAfterSeconds = fields.retryAfterSeconds ?? null;
    this.notOursWithheld = fields.notOursWithheld ?? false;
    const raw = fields.rawAnswer ?? null;
    this.rawAnswer =
      raw !== null && raw.length > RAW_ANSWER_LIMIT ? `${raw.slice(0, RAW_ANSWER_LIMIT)}…` : raw;
  }

  /**
   * The record does not exist (404) or does not belong to our account (403), said in the read
   * endpoints' own error body (shape B, docs/gateway.md 7.2): for a webhook, a forgery. A 403
   * shape C (the account is not permitted, 7.3), a 401, or a 404 from a proxy's HTML page says
   * nothing about the record: see isIndeterminate.
   */
  get isNotOurs(): boolean {
    return (
      this.kind === 'http' &&
      (this.status === 404 || this.status === 403) &&
      this.shape === 'B' &&
      !this.notOursWithheld
    );
  }

  /**
   * An answer that neither gives the record nor says it is not ours, and that retrying soon
   * will not fix by itself (keys revoked, account not permitted, a proxy in the way): "cannot
   * tell now". Retried with backoff all the same, counted, and alerted on.
   */
  get isIndeterminate(): boolean {
    return (
      this.kind === 'invalid_response' ||
      (this.kind === 'http' && !this.isNotOurs && !this.isTransient)
    );
  }

  /** Worth another try later: no answer, rate limited, or the gateway's own failure. */
  get isTransient(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    return (
      this.kind === 'http' && this.status !== null && (this.status === 429 || this.status >= 500)
    );
  }
}
