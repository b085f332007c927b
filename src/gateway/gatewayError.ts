import type { GatewayEndpoint } from './types.js';

/** Which of the spec's error bodies came back (spec 2.4), if any. */
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

  constructor(fields: {
    endpoint: GatewayEndpoint;
    kind: GatewayErrorKind;
    message: string;
    status?: number | null;
    shape?: ErrorShape | null;
    errorType?: string | null;
    code?: string | null;
    retryAfterSeconds?: number | null;
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
  }

  /** The record does not exist (404) or is not ours (403): for a webhook, a forgery. */
  get isNotOurs(): boolean {
    return this.kind === 'http' && (this.status === 404 || this.status === 403);
  }

  /** Worth another try later: no answer, rate limited, or the gateway's own failure. */
  get isTransient(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    return (
      this.kind === 'http' && this.status !== null && (this.status === 429 || this.status >= 500)
    );
  }
}
