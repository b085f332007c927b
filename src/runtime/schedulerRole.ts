import type { Config } from '../config/config.js';
import type { Database } from '../db/client.js';
import { warnIfFeedWasOn } from '../feed/feedWasOn.js';
import { startTransitionPoster } from '../feed/transitionPoster.js';
import { startTransitionPublisher, type TransitionQueue } from '../feed/transitionPublisher.js';
import type { GatewayClient } from '../gateway/index.js';
import { pruneDedupeKeys, pruneProcessedInbox } from '../inbox/prune.js';
import { trimRejected } from '../inbox/rejectedDeliveries.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { RECONCILE_QUEUE, TRANSITIONS_QUEUE, type RetryPolicy } from '../queue/catalog.js';
import type { LaneQueues } from '../queue/lanes.js';
import { startReconcileScheduler } from '../reconciler/reconcileScheduler.js';
import { runPeriodically } from '../scheduler/periodic.js';
import { startSweeperLoop } from '../scheduler/sweeper.js';
import { observePass } from './observability.js';
import { queuePrefixFor, type RedisClient } from './redis.js';

export interface SchedulerRoleDeps {
  readonly config: Config;
  readonly database: Database;
  readonly lanes: LaneQueues;
  readonly transitions: TransitionQueue | null;
  readonly redis: RedisClient;
  readonly gateway: GatewayClient | null;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** How often the scheduler applies the retention settings (REJECTS_*, INBOX_RETENTION_DAYS). */
const RETENTION_INTERVAL_MS = 60_000;

/**
 * The scheduler role: the sweeper, reconciliation passes, the transition feed and the rejects
 * table's retention. Returns one close() that stops them in order.
 */
export async function startSchedulerRole(deps: SchedulerRoleDeps): Promise<() => Promise<void>> {
  const { config, database, logger, metrics } = deps;
  const retry: RetryPolicy = { attempts: config.jobAttempts, backoffMs: config.jobBackoffMs };
  const stops: (() => Promise<void>)[] = [];

  const sweeper = startSweeperLoop(
    {
      sql: database.sql,
      lanes: deps.lanes,
      gatewayConfigured: deps.gateway !== null,
      retry,
      afterSeconds: config.sweepAfterSeconds,
    },
    config.sweepIntervalSeconds,
    logger,
    (count) => metrics.sweeperRequeued.inc(count),
  );
  stops.push(() => sweeper.stop());

  const trim = runPeriodically(
    'retention',
    async () => {
      const removed = await trimRejected(database.sql, config.rejects);
      if (removed > 0) logger.info({ removed }, 'rejected deliveries trimmed');
      // Retention runs itself: keys past the dedupe window decide nothing any more, and
      // processed inbox rows go after INBOX_RETENTION_DAYS.
      if (config.inboxRetentionDays === 0) return { again: false };
      const dedupeKeys = await pruneDedupeKeys(database.sql, config.dedupeWindowHours * 3600);
      const inboxRows = await pruneProcessedInbox(database.sql, config.inboxRetentionDays * 86_400);
      if (dedupeKeys + inboxRows > 0) {
        logger.info({ dedupeKeys, inboxRows }, 'retention: expired rows deleted');
      }
      return { again: false };
    },
    RETENTION_INTERVAL_MS,
    logger,
  );
  stops.push(() => trim.stop());

  if (!config.transitions.enabled) {
    // In the background: a start with Postgres down must not wait on it.
    void warnIfFeedWasOn(database.sql, logger).catch((error: unknown) =>
      logger.debug({ err: error }, 'cannot tell whether the transition feed was on before'),
    );
  }
  if (deps.transitions) {
    const publisher = startTransitionPublisher(
      database.sql,
      deps.transitions,
      {
        intervalMs: config.transitions.publishIntervalMs,
        maxBacklog: config.transitions.maxBacklog,
      },
      logger,
    );
    stops.push(() => publisher.stop());
    if (config.transitions.webhookUrl) {
      // One POST at a time across every process keeps each record's transitions in order.
      await deps.transitions.setGlobalConcurrency(1);
      const poster = startTransitionPoster({
        url: config.transitions.webhookUrl,
        connection: deps.redis,
        prefix: queuePrefixFor(config, TRANSITIONS_QUEUE),
        logger,
        sql: database.sql,
        onDropped: () => metrics.transitionsDropped.inc(),
      });
      stops.push(() => poster.close());
    }
  }

  if (deps.gateway) {
    const reconciler = await startReconcileScheduler({
      sql: database.sql,
      gateway: deps.gateway,
      policy: config.watchPolicy,
      logger,
      connection: deps.redis,
      prefix: queuePrefixFor(config, RECONCILE_QUEUE),
      intervalSeconds: config.reconcile.intervalSeconds,
      batchSize: config.reconcile.batchSize,
      onPass: (summary) => observePass(metrics, summary),
      onPassFailed: () => metrics.reconcileRuns.inc({ status: 'failed' }),
    });
    stops.push(() => reconciler.close());
  }

  return async () => {
    for (const stop of stops) await stop();
  };
}
