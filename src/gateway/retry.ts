import type { GatewayError } from './gatewayError.js';

/** How the two GETs retry; the POSTs never do (see client.ts). */
export interface RetryPolicy {
  /** Total tries, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  attempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
});

/** A Retry-After longer than this is not waited out in-process: the caller retries later. */
const MAX_RETRY_AFTER_MS = 60_000;

/** No answer, rate limited, or the gateway's own failure; never another 4xx, never a bad 2xx. */
export function isRetryable(error: GatewayError): boolean {
  return error.isTransient;
}

/**
 * Exponential backoff with full jitter: random() * min(maxDelay, base * 2^retryIndex), where
 * retryIndex is 0 before the second try. A Retry-After is a floor (capped at 60 s).
 */
export function retryDelayMs(
  retryIndex: number,
  retryAfterSeconds: number | null,
  policy: RetryPolicy,
  random: () => number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  const jittered = Math.floor(clampUnit(random()) * ceiling);
  if (retryAfterSeconds === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS));
}

function clampUnit(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return value >= 1 ? 1 : value;
}

export function resolveRetryPolicy(options: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy: RetryPolicy = {
    attempts: options?.attempts ?? DEFAULT_RETRY_POLICY.attempts,
    baseDelayMs: options?.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
  };
  if (!Number.isSafeInteger(policy.attempts) || policy.attempts < 1) {
    throw new RangeError('retry.attempts must be an integer >= 1');
  }
  if (!Number.isFinite(policy.baseDelayMs) || policy.baseDelayMs < 0) {
    throw new RangeError('retry.baseDelayMs must be a finite number >= 0');
  }
  if (!Number.isFinite(policy.maxDelayMs) || policy.maxDelayMs < 0) {
    throw new RangeError('retry.maxDelayMs must be a finite number >= 0');
  }
  return policy;
}
