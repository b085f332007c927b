import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import {
  budgetKey,
  createGatewayClient,
  createRateLimiter,
  createSharedRateLimiter,
  type BudgetRedis,
  type GatewayClient,
} from '../gateway/index.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * The process's one gateway client, or null without keys. With `redis`, its rate limit is the
 * account's budget shared with every other process (see sharedRateLimiter); without, this
 * process's alone (tests of the client, a CLI with no Redis configured).
 */
export function gatewayClientFor(
  config: Config,
  metrics: Metrics | null,
  redis: BudgetRedis | null,
): GatewayClient | null {
  if (!config.gateway) return null;
  const { maxRps, publicKey } = config.gateway;
  const onAcquire = () => metrics?.gatewayBudgetTaken.inc();
  return createGatewayClient({
    baseUrl: config.gateway.baseUrl,
    publicKey,
    privateKey: config.gateway.privateKey,
    timeoutMs: config.gateway.timeoutMs,
    rateLimiter: redis
      ? createSharedRateLimiter(redis, {
          maxPerSecond: maxRps,
          key: budgetKey(createHash('sha256').update(publicKey).digest('hex').slice(0, 16)),
          onAcquire,
        })
      : countingAcquires(createRateLimiter(maxRps), onAcquire),
    onCall: (call) => {
      const labels = { endpoint: call.endpoint, status: String(call.status) };
      metrics?.gatewayCalls.inc(labels);
      if (call.verdict === 'indeterminate') metrics?.gatewayIndeterminate.inc(labels);
    },
  });
}

function countingAcquires(
  limiter: ReturnType<typeof createRateLimiter>,
  onAcquire: () => void,
): ReturnType<typeof createRateLimiter> {
  return { acquire: () => limiter.acquire().then(onAcquire) };
}
