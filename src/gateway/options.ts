import { createRateLimiter, defaultSleep, DEFAULT_RATE_LIMIT_PER_SECOND } from './rateLimiter.js';
import type { NotOursGate } from './notOursGate.js';
import type { RateLimiter } from './rateLimiter.js';
import { resolveRetryPolicy } from './retry.js';
import type { RetryPolicy } from './retry.js';
import type { GatewayEndpoint } from './types.js';

/**
 * What an answer says of the record asked for: 'ok' (a 2xx), 'not_ours' (404/403 shape B),
 * 'transient' (no answer, 429, 5xx: worth retrying soon), 'indeterminate' (anything else: 401,
 * 403 shape C, a 404 from a proxy — cannot tell now).
 */
export type GatewayVerdict = 'ok' | 'not_ours' | 'transient' | 'indeterminate';

/** One HTTP attempt, for metrics: a status, or why none came. */
export interface GatewayCall {
  readonly endpoint: GatewayEndpoint;
  readonly status: number | 'network' | 'timeout';
  readonly durationMs: number;
  readonly verdict: GatewayVerdict;
}

export interface GatewayClientOptions {
  /** The gateway's {base_url}, e.g. https://api.example.com (a path prefix is kept). */
  readonly baseUrl: string;
  /** Sent as X-Api-Public-Key on every request; never logged. */
  readonly publicKey: string;
  /** Sent as X-Api-Private-Key on every request; never logged. */
  readonly privateKey: string;
  /** Per HTTP attempt, body included. Default 10000. */
  readonly timeoutMs?: number;
  /** Shared by everything that talks to the gateway. Default: a new limiter at 5 per second. */
  readonly rateLimiter?: RateLimiter;
  /** GETs only. Defaults: 4 tries in all, 250 ms base delay, 10000 ms maximum delay. */
  readonly retry?: Partial<RetryPolicy>;
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** For the backoff jitter. Default: Math.random. */
  readonly random?: () => number;
  /** Waits between retries. Default: setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called once per HTTP attempt (metrics); an exception it throws is ignored. */
  readonly onCall?: (call: GatewayCall) => void;
  /**
   * Decides whether a 404/403 shape B may be read as "not ours" (see notOursGate). Default:
   * none, every such answer is.
   */
  readonly notOursGate?: NotOursGate | null;
}

export interface ClientSettings {
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly privateKey: string;
  readonly timeoutMs: number;
  readonly rateLimiter: RateLimiter;
  readonly retry: RetryPolicy;
  readonly fetch: typeof fetch;
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly onCall: (call: GatewayCall) => void;
  readonly notOursGate: NotOursGate | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;

// Visible ASCII only: fetch rejects other header values with a message that quotes them.
const KEY_PATTERN = /^[\x21-\x7e]+$/;

function checkKey(name: string, value: unknown): string {
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    throw new TypeError(`${name} must be a non-empty string of visible ASCII characters`);
  }
  return value;
}

function checkBaseUrl(value: unknown): string {
  let url: URL | null = null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError('baseUrl must be an absolute http(s) URL');
  }
  return (value as string).replace(/\/+$/, '');
}

export function resolveOptions(options: GatewayClientOptions): ClientSettings {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError('timeoutMs must be a finite number > 0');
  }
  const onCall = options.onCall;
  return {
    baseUrl: checkBaseUrl(options.baseUrl),
    publicKey: checkKey('publicKey', options.publicKey),
    privateKey: checkKey('privateKey', options.privateKey),
    timeoutMs,
    rateLimiter: options.rateLimiter ?? createRateLimiter(DEFAULT_RATE_LIMIT_PER_SECOND),
    retry: resolveRetryPolicy(options.retry),
    fetch: options.fetch ?? globalThis.fetch,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
    notOursGate: options.notOursGate ?? null,
    onCall: (call) => {
      try {
        onCall?.(call);
      } catch {
        // Metrics must never change the outcome of a call.
      }
    },
  };
}
