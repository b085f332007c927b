import { isIPv4, isIPv6 } from 'node:net';

/**
 * Per-source limit on UNAUTHENTICATED failures at the ingress (401 bad signature, 404 unknown
 * webhook token, 403 source not allowed). A source with `maxFailures` failures within the last
 * `windowMs` is blocked until the oldest of them is `windowMs` old: the ingress then answers
 * 429 with Retry-After instead of reading, verifying, logging and keeping another rejection.
 *
 * Only failures are ever recorded, so an authentic sender is never counted; whether a blocked
 * source's authentic request still passes is the caller's choice (see SECURITY.md).
 *
 * Sources are keyed by address; IPv4-mapped IPv6 addresses count as their IPv4 address and
 * every IPv6 address counts as its /64 (one host can hold a whole /64). Memory is bounded:
 * at most `maxSources` sources (the one whose last failure is oldest goes first), each with at
 * most `maxFailures` timestamps.
 */
export interface AuthFailureLimiter {
  isBlocked(address: string | null): boolean;
  recordFailure(address: string | null): void;
  /** Whole seconds until a blocked source may fail again (≥ 1); 0 when it is not blocked. */
  retryAfterSeconds(address: string | null): number;
  /** Sources currently tracked (for tests and metrics). */
  size(): number;
}

export interface AuthFailureLimiterOptions {
  /** Failures allowed per source within `windowMs`; default 20. */
  readonly maxFailures?: number;
  /** Default 60 000 ms. */
  readonly windowMs?: number;
  /** Sources tracked at most; default 10 000. */
  readonly maxSources?: number;
  /** Milliseconds, monotonic enough; default Date.now. */
  readonly now?: () => number;
}

/** The bucket for requests whose address is unknown (the socket already closed). */
const UNKNOWN_SOURCE = 'unknown';
/**
 * The bucket for addresses that are not IP addresses (only possible through X-Forwarded-For
 * with TRUSTED_PROXY_COUNT set too high): one bucket, so a forged header can neither mint
 * unlimited keys nor make one key as large as a header.
 */
const NOT_AN_IP = 'not-an-ip';

export function createAuthFailureLimiter(
  options: AuthFailureLimiterOptions = {},
): AuthFailureLimiter {
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const maxSources = options.maxSources ?? 10_000;
  const now = options.now ?? Date.now;
  for (const [name, value] of [
    ['maxFailures', maxFailures],
    ['windowMs', windowMs],
    ['maxSources', maxSources],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
  }

  /**
   * Source key → timestamps of its recent failures, oldest first, at most maxFailures. Map
   * iteration order is insertion order, and a source is re-inserted on each failure, so the
   * first key is always the source whose last failure is the oldest.
   */
  const failures = new Map<string, number[]>();

  /** The source's failures still inside the window (dropping the source when none are). */
  const recent = (key: string, at: number): number[] | undefined => {
    const times = failures.get(key);
    if (!times) return undefined;
    const cutoff = at - windowMs;
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= cutoff) expired += 1;
    if (expired === times.length) {
      failures.delete(key);
      return undefined;
    }
    if (expired > 0) times.splice(0, expired);
    return times;
  };

  const blockedFor = (address: string | null): number => {
    const at = now();
    const times = recent(sourceKey(address), at);
    if (!times || times.length < maxFailures) return 0;
    return (times[0] as number) + windowMs - at;
  };

  return {
    isBlocked(address) {
      return blockedFor(address) > 0;
    },
    retryAfterSeconds(address) {
      const ms = blockedFor(address);
      return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
    },
    recordFailure(address) {
      const at = now();
      const key = sourceKey(address);
      const times = recent(key, at) ?? [];
      times.push(at);
      if (times.length > maxFailures) times.splice(0, times.length - maxFailures);
      failures.delete(key);
      failures.set(key, times);
      while (failures.size > maxSources) {
        const oldest = failures.keys().next();
        if (oldest.done) break;
        failures.delete(oldest.value);
      }
    },
    size() {
      return failures.size;
    },
  };
}

/** IPv4 as is; IPv4-mapped IPv6 as its IPv4; other IPv6 as its /64; anything else one bucket. */
export function sourceKey(address: string | null): string {
  if (address === null || address === '') return UNKNOWN_SOURCE;
  const unzoned = address.split('%', 1)[0] ?? address;
  const lower = unzoned.toLowerCase();
  if (lower.startsWith('::ffff:') && isIPv4(lower.slice(7))) return lower.slice(7);
  if (isIPv4(lower)) return lower;
  if (!isIPv6(lower)) return NOT_AN_IP;
  const groups = expandIPv6(lower);
  return groups === null ? lower : `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as unpadded lowercase hex. */
function expandIPv6(address: string): string[] | null {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (isIPv4(dotted)) {
    // An embedded IPv4 tail ("64:ff9b::1.2.3.4") is the last two groups.
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return null;
  const groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
