import { Redis } from 'ioredis';

/**
 * Producers fail fast when Redis is away (the inbox row is already durable and the sweeper
 * will enqueue it); workers wait and reconnect for as long as it takes, as BullMQ requires.
 */
export function createProducerRedis(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    lazyConnect: false,
  });
}

export function createWorkerRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export async function pingRedis(redis: Redis, timeoutMs: number): Promise<string | null> {
  try {
    const answer = await withTimeout(redis.ping(), timeoutMs);
    return answer === 'PONG' ? null : `unexpected answer ${answer}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  // The loser of the race must not become an unhandled rejection.
  promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Waits a moment for a fail-fast connection to be ready, so the first commands of a fresh
 * process do not fail for no reason; Redis being down is not fatal, so this never throws.
 */
export async function settle(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await withTimeout(
    new Promise<void>((resolve) => redis.once('ready', () => resolve())),
    timeoutMs,
  ).catch(() => undefined);
}
