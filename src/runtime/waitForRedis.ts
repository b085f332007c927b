import type { RedisTopology } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { DependencyUnreachableError, requireRedis } from './dependencies.js';

/** Waits between tries at start: 1 s, doubling, at most 30 s. */
function redisRetryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
}

/**
 * `start` waits for Redis instead of starting clients that would each log a failure several
 * times a second: one line per try (naming the setting that says where Redis is), with backoff,
 * until Redis answers. The caller stops it by exiting (a signal ends `start` in any phase).
 */
export async function waitForRedis(
  topology: RedisTopology,
  logger: Logger,
  probeTimeoutMs = 2000,
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await requireRedis(topology, probeTimeoutMs);
      if (attempt > 0) logger.info('Redis answers: starting');
      return;
    } catch (error) {
      if (!(error instanceof DependencyUnreachableError)) throw error;
      const delayMs = redisRetryDelayMs(attempt);
      logger.warn(`${error.message}; trying again in ${delayMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
