import { defaultSleep, type RateLimiter } from './rateLimiter.js';

/**
 * The gateway's budget (GATEWAY_MAX_RPS) is per account, not per process: a token bucket in
 * Redis that every process holding the same keys draws from (ingress, workers, scheduler, the
 * CLI). Redis's own clock times the refill, so the processes' clocks need not agree. Callers
 * in one process are served first come, first served, one Redis round trip at a time.
 */

/** The subset of an ioredis client (single node, cluster or sentinel) this needs. */
export interface BudgetRedis {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface SharedRateLimiterOptions {
  readonly maxPerSecond: number;
  /** One key per gateway account (see budgetKey). */
  readonly key: string;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of each token taken: the budget used, for metrics. */
  readonly onAcquire?: () => void;
}

// KEYS[1]: the bucket. ARGV: tokens per second, capacity. Leaves in `tokens` what the bucket
// holds now (refilled since it was last written), in `now` Redis's clock in ms.
const REFILLED = `
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate / 1000)
`;

// Returns 0 when a token was taken, else the milliseconds until one will be there.
const TAKE_TOKEN = `${REFILLED}
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], 60000)
return wait
`;

// Takes nothing: the tokens in the bucket now, as a decimal string (a Lua number would reach
// the client as an integer).
const READ_TOKENS = `${REFILLED}
return tostring(tokens)
`;

/**
 * The tokens left in the shared bucket now (0 to maxPerSecond), taking none: how much of the
 * account's budget every process together leaves unused this second.
 */
export async function readSharedBudget(
  redis: BudgetRedis,
  options: Pick<SharedRateLimiterOptions, 'maxPerSecond' | 'key'>,
): Promise<number> {
  const capacity = Math.max(1, options.maxPerSecond);
  const answer = await redis.eval(READ_TOKENS, 1, options.key, options.maxPerSecond, capacity);
  const tokens = typeof answer === 'string' ? Number(answer) : Number.NaN;
  if (!Number.isFinite(tokens)) throw new RateLimiterAnswerError(answer);
  return Math.min(capacity, Math.max(0, tokens));
}

class RateLimiterAnswerError extends Error {
  override readonly name = 'RateLimiterAnswerError';
  constructor(answer: unknown) {
    super(`the shared rate limiter answered ${JSON.stringify(answer)}, not a number`);
  }
}

export function createSharedRateLimiter(
  redis: BudgetRedis,
  options: SharedRateLimiterOptions,
): RateLimiter {
  if (!Number.isFinite(options.maxPerSecond) || options.maxPerSecond <= 0) {
    throw new RangeError('maxPerSecond must be a finite number > 0');
  }
  const sleep = options.sleep ?? defaultSleep;
  const capacity = Math.max(1, options.maxPerSecond);
  let queue: Promise<unknown> = Promise.resolve();

  async function take(): Promise<void> {
    for (;;) {
      const wait = await redis.eval(TAKE_TOKEN, 1, options.key, options.maxPerSecond, capacity);
      if (typeof wait !== 'number') throw new RateLimiterAnswerError(wait);
      if (wait === 0) {
        options.onAcquire?.();
        return;
      }
      await sleep(wait);
    }
  }

  return {
    acquire(): Promise<void> {
      const turn = queue.then(take);
      // A failed turn (Redis away) fails its caller only; the next caller tries again.
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

/** The bucket's key: one per gateway account, whatever queue prefix a deployment uses. */
export function budgetKey(publicKeyDigest: string): string {
  return `paymirror:gateway-budget:{${publicKeyDigest}}`;
}
