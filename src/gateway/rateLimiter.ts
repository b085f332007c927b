/**
 * A process-wide limit on calls to the gateway: a token bucket holding up to maxPerSecond
 * tokens (at least 1), refilled continuously, with callers served strictly first come, first
 * served. Share one instance between every client of one set of keys.
 */
export interface RateLimiter {
  /** Resolves when the caller may send one HTTP request. */
  acquire(): Promise<void>;
}

export interface RateLimiterOptions {
  /** Milliseconds on a monotonic clock. Default: performance.now. */
  readonly now?: () => number;
  /** Default: setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RATE_LIMIT_PER_SECOND = 5;

export function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function createRateLimiter(
  maxPerSecond: number,
  options: RateLimiterOptions = {},
): RateLimiter {
  if (!Number.isFinite(maxPerSecond) || maxPerSecond <= 0) {
    throw new RangeError('maxPerSecond must be a finite number > 0');
  }
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? defaultSleep;
  const capacity = Math.max(1, maxPerSecond);
  const waiters: (() => void)[] = [];
  let tokens = capacity;
  let refilledAt = now();
  let draining = false;

  function refill(): void {
    const at = now();
    const elapsed = Math.max(0, at - refilledAt);
    refilledAt = at;
    tokens = Math.min(capacity, tokens + (elapsed * maxPerSecond) / 1000);
  }

  // One drain loop at a time hands out tokens in queue order; it runs synchronously while
  // tokens last, so an uncontended acquire resolves without waiting.
  async function drain(): Promise<void> {
    draining = true;
    try {
      while (waiters.length > 0) {
        refill();
        if (tokens >= 1) {
          tokens -= 1;
          waiters.shift()?.();
          continue;
        }
        await sleep(Math.max(1, Math.ceil(((1 - tokens) * 1000) / maxPerSecond)));
      }
    } finally {
      draining = false;
    }
  }

  return {
    acquire(): Promise<void> {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        // A failing injected sleep ends this drain; the next acquire starts another.
        if (!draining) drain().catch(() => undefined);
      });
    },
  };
}

/**
 * A limit within a limit: each caller takes a token from `share` first, then from `whole`. A
 * kind of call limited to a part of a budget (`share` fills at that part's rate) still counts
 * against the whole budget that every other call draws from.
 */
export function withinShare(share: RateLimiter, whole: RateLimiter): RateLimiter {
  return { acquire: () => share.acquire().then(() => whole.acquire()) };
}
