import { randomBytes } from 'node:crypto';
import {
  createAuthFailureLimiter,
  sourceKey,
  type AuthFailureLimiter,
  type AuthFailureLimiterOptions,
} from './authFailureLimiter.js';

/** The subset of an ioredis client this needs. */
export interface FailureRedis {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface SharedAuthFailureOptions extends AuthFailureLimiterOptions {
  /** Keys are `{keyPrefix}:{source}`: one prefix per deployment (the queue prefix). */
  readonly keyPrefix: string;
  /** Told when Redis could not be reached (the local limit still holds). */
  readonly onError?: (error: unknown) => void;
}

// KEYS[1]: the source's failures (a sorted set of times). ARGV: now, window, max, member.
// Records one failure and returns {count in window, oldest time in window}.
const RECORD_FAILURE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[4])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), tonumber(oldest[2])}
`;

/**
 * The per-source limit on unauthenticated failures, across every ingress process: each
 * failure is recorded in Redis as well as locally, and a source that reached the limit in all
 * processes together is blocked here too. Answers stay synchronous (a blocked source costs no
 * round trip): a process learns of the others' failures when it records one of its own, so a
 * source gets at most one more failure per process per window. Redis away: the local limit
 * alone holds.
 */
export function createSharedAuthFailureLimiter(
  redis: FailureRedis,
  options: SharedAuthFailureOptions,
): AuthFailureLimiter & { recordFailure(address: string | null): Promise<void> } {
  const local = createAuthFailureLimiter(options);
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  /** Source key → when the shared block ends (ms). */
  const sharedUntil = new Map<string, number>();

  const sharedBlockMs = (address: string | null): number => {
    const key = sourceKey(address);
    const until = sharedUntil.get(key);
    if (until === undefined) return 0;
    const left = until - now();
    if (left <= 0) sharedUntil.delete(key);
    return Math.max(0, left);
  };

  return {
    isBlocked(address) {
      return local.isBlocked(address) || sharedBlockMs(address) > 0;
    },
    retryAfterSeconds(address) {
      const shared = sharedBlockMs(address);
      const sharedSeconds = shared > 0 ? Math.max(1, Math.ceil(shared / 1000)) : 0;
      return Math.max(local.retryAfterSeconds(address), sharedSeconds);
    },
    async recordFailure(address) {
      local.recordFailure(address);
      const key = sourceKey(address);
      const at = now();
      try {
        const answer = (await redis.eval(
          RECORD_FAILURE,
          1,
          `${options.keyPrefix}:auth-failures:${key}`,
          at,
          windowMs,
          maxFailures,
          `${at}-${randomBytes(6).toString('hex')}`,
        )) as [number, number | null];
        const [count, oldest] = answer;
        if (count >= maxFailures && oldest !== null) {
          sharedUntil.set(key, Number(oldest) + windowMs);
          // Bounded like the local map: the entry whose block ends first goes first.
          if (sharedUntil.size > (options.maxSources ?? 10_000)) {
            const first = sharedUntil.keys().next();
            if (!first.done) sharedUntil.delete(first.value);
          }
        }
      } catch (error) {
        options.onError?.(error);
      }
    },
    size() {
      return local.size();
    },
  };
}
