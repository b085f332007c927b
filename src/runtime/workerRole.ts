import type { Config } from '../config/config.js';
import type { GatewayClient } from '../gateway/index.js';
import type { NotOursGate } from '../gateway/notOursGate.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RetryPolicy } from '../queue/catalog.js';
import type { LaneQueues } from '../queue/lanes.js';
import { startConfirmationWorker, startUnknownIdsWorker } from '../worker/confirmationWorker.js';
import type { LaneWorkerDeps } from '../worker/laneWorker.js';
import { startNotificationWorker, type RunningLane } from '../worker/notificationWorker.js';
import { gatewayClientFor } from './gatewayClient.js';
import type { RedisClient } from './redis.js';

export interface WorkerRoleDeps {
  readonly config: Config;
  readonly lanes: LaneQueues;
  /** What every lane's worker shares: the pool, the gateway client, Redis, logger, metrics. */
  readonly lane: LaneWorkerDeps;
  readonly gateway: GatewayClient | null;
  readonly producerRedis: RedisClient;
  readonly notOursGate: NotOursGate | null;
  readonly retry: RetryPolicy;
  readonly metrics: Metrics;
}

/**
 * The worker role: the signed lane's worker, and with gateway keys the confirmation lane's and
 * the unknown ids' (whose reads take their own share of the budget).
 */
export function startWorkerRole(deps: WorkerRoleDeps): RunningLane[] {
  const { config, lanes, lane, gateway, retry } = deps;
  const signed = startNotificationWorker({
    ...lane,
    concurrency: config.workerConcurrency,
    confirmationQueue: gateway ? lanes.confirmation : null,
    retry,
  });
  if (!gateway) return [signed];
  return [
    signed,
    startConfirmationWorker({
      ...lane,
      concurrency: config.confirmationConcurrency,
      unknownIdsQueue: lanes.unknownIds,
      retry,
    }),
    startUnknownIdsWorker({
      ...lane,
      gateway: gatewayClientFor(
        config,
        deps.metrics,
        deps.producerRedis,
        'unknownIds',
        deps.notOursGate,
      ),
      concurrency: config.confirmationConcurrency,
    }),
  ];
}
