import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { GatewayBudget } from '../console/pageContext.js';
import {
  budgetKey,
  readSharedBudget,
  createGatewayClient,
  createRateLimiter,
  createSharedRateLimiter,
  withinShare,
  type BudgetRedis,
  type GatewayClient,
} from '../gateway/index.js';
import type { NotOursGate } from '../gateway/notOursGate.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * The process's gateway client, or null without keys. With `redis`, its rate limit is the
 * account's budget shared with every other process (see sharedRateLimiter); without, this
 * process's alone (tests of the client, a CLI with no Redis configured). `share` 'unknownIds':
 * the client that confirms webhooks about ids the mirror does not know, which takes a token of
 * their own part of the budget (GATEWAY_UNKNOWN_IDS_PERCENT, a bucket shared the same way)
 * before each token of the account's.
 */
export function gatewayClientFor(
  config: Config,
  metrics: Metrics | null,
  redis: BudgetRedis | null,
  share: 'all' | 'unknownIds' = 'all',
  notOursGate: NotOursGate | null = null,
): GatewayClient | null {
  if (!config.gateway) return null;
  const { maxRps, unknownIdsMaxRps, publicKey } = config.gateway;
  const onAcquire = () => metrics?.gatewayBudgetTaken.inc();
  const key = accountBudgetKey(publicKey);
  const account = redis
    ? createSharedRateLimiter(redis, { maxPerSecond: maxRps, key, onAcquire })
    : countingAcquires(createRateLimiter(maxRps), onAcquire);
  const part = redis
    ? createSharedRateLimiter(redis, { maxPerSecond: unknownIdsMaxRps, key: `${key}:unknown-ids` })
    : createRateLimiter(unknownIdsMaxRps);
  return createGatewayClient({
    baseUrl: config.gateway.baseUrl,
    publicKey,
    privateKey: config.gateway.privateKey,
    timeoutMs: config.gateway.timeoutMs,
    rateLimiter: share === 'all' ? account : withinShare(part, account),
    notOursGate,
    onCall: (call) => {
      const labels = { endpoint: call.endpoint, status: String(call.status) };
      metrics?.gatewayCalls.inc(labels);
      if (call.verdict === 'indeterminate') metrics?.gatewayIndeterminate.inc(labels);
    },
  });
}

/** The shared budget's bucket of the account these keys belong to. */
function accountBudgetKey(publicKey: string): string {
  return budgetKey(createHash('sha256').update(publicKey).digest('hex').slice(0, 16));
}

/**
 * What the console shows of the gateway budget: the account's limit, what is left of it in the
 * shared bucket now, and what this process took; null without gateway keys.
 */
export function gatewayBudgetReader(
  config: Config,
  metrics: Metrics,
  redis: BudgetRedis,
): (() => Promise<GatewayBudget>) | null {
  const gateway = config.gateway;
  if (!gateway) return null;
  const key = accountBudgetKey(gateway.publicKey);
  return async () => {
    const [available, taken] = await Promise.all([
      readSharedBudget(redis, { maxPerSecond: gateway.maxRps, key }),
      metrics.gatewayBudgetTaken.get(),
    ]);
    return {
      maxPerSecond: gateway.maxRps,
      available,
      takenByThisProcess: taken.values[0]?.value ?? 0,
    };
  };
}

function countingAcquires(
  limiter: ReturnType<typeof createRateLimiter>,
  onAcquire: () => void,
): ReturnType<typeof createRateLimiter> {
  return { acquire: () => limiter.acquire().then(onAcquire) };
}
