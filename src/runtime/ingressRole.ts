import type { Config } from '../config/config.js';
import type { Database } from '../db/client.js';
import { createBatchedStore } from '../inbox/batchedStore.js';
import type { Delivery } from '../inbox/delivery.js';
import { isStorageOutage } from '../inbox/outage.js';
import { storeRejected } from '../inbox/rejectedDeliveries.js';
import { createSpool, type Spool } from '../inbox/spool.js';
import { spoolMacFor } from '../inbox/spoolMac.js';
import { storeDelivery } from '../inbox/storeDelivery.js';
import type { IngestDeps } from '../ingress/ingest.js';
import { createSharedAuthFailureLimiter } from '../ingress/sharedAuthFailures.js';
import { drainSpool } from '../ingress/spoolDrainer.js';
import { createUnauthenticatedBytes } from '../ingress/unauthenticatedBytes.js';
import { createSourceAllowlist } from '../ingress/webhookAuth.js';
import { withTimeout } from '../lib/withTimeout.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { createBatchedEnqueue } from '../queue/batchedEnqueue.js';
import type { RetryPolicy } from '../queue/catalog.js';
import { enqueueInLanes, type LaneQueues, type LaneRow } from '../queue/lanes.js';
import { runPeriodically } from '../scheduler/periodic.js';
import type { RedisClient } from './redis.js';

/** How often the ingress tries to move spooled deliveries into the inbox. */
const SPOOL_DRAIN_INTERVAL_MS = 1000;
/** Longer than any healthy INSERT, shorter than a gateway's patience. */
const STORE_TIMEOUT_MS = 5000;

export interface IngressRoleDeps {
  readonly config: Config;
  readonly database: Database;
  readonly lanes: LaneQueues;
  readonly gatewayConfigured: boolean;
  readonly retry: RetryPolicy;
  readonly producerRedis: RedisClient;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

export interface IngressRole {
  /** What the notification routes need. */
  readonly ingest: IngestDeps;
  readonly spool: Spool;
  /** Stores and enqueues what the last requests left waiting, then closes the spool. */
  close(): Promise<void>;
}

/**
 * The ingress role: the batched inbox store and enqueue behind the notification routes, and
 * the spool that takes deliveries while Postgres is away (drained back every second).
 */
export async function startIngressRole(deps: IngressRoleDeps): Promise<IngressRole> {
  const { config, database, lanes, gatewayConfigured, retry, metrics, logger } = deps;
  const spool = await createSpool(config.spool.dir, {
    maxBytes: config.spool.maxBytes,
    mac: spoolMacFor(config.postbackSecrets, config.webhookTokens),
    onUnverified: (lines, file) =>
      logger.error(
        { lines, file },
        'spooled lines whose HMAC does not verify were set aside, not replayed',
      ),
  });
  // A store that hangs (Postgres restarting under us) counts as an outage: the delivery goes to
  // the spool; if the INSERT lands after all, the spool's copy becomes a duplicate.
  const store = (delivery: Delivery) =>
    withTimeout(
      storeDelivery(database.sql, delivery, { dedupeWindowHours: config.dedupeWindowHours }),
      STORE_TIMEOUT_MS,
    );
  const enqueue = (row: LaneRow) => enqueueInLanes(lanes, [row], gatewayConfigured, retry);
  // The ingress's requests share statements: deliveries are stored many to a statement (one
  // commit) and their jobs added many to an addBulk; each request waits for its own commit,
  // not for its job (see ingest.ts). No timer: a batch leaves at the end of the event loop's
  // turn when a slot is free, and the requests that come while the slots are taken make up the
  // next one (a 2 ms timer instead cost a quarter of the throughput).
  const batchedStore = createBatchedStore(database.sql, {
    dedupeWindowHours: config.dedupeWindowHours,
    maxBatch: 64,
    maxWaitMs: 0,
    maxInFlight: 2,
    onBatchFailure: (error, size) =>
      logger.warn({ err: error, size }, 'batched inbox statement failed'),
    // Postgres unreachable: every delivery would fail too, so spool them at once.
    retryOneByOne: (error) => !isStorageOutage(error),
  });
  const batchedEnqueue = createBatchedEnqueue(lanes, gatewayConfigured, retry, {
    maxWaitMs: 0,
    maxInFlight: 1,
  });
  const spoolDrainer = runPeriodically(
    'drain spool',
    async () => {
      await drainSpool(spool, store, enqueue, logger, config.sellerUserId);
      return { again: false };
    },
    SPOOL_DRAIN_INTERVAL_MS,
    logger,
  );

  const ingest: IngestDeps = {
    postbackSecrets: config.postbackSecrets,
    webhookTokens: config.webhookTokens,
    sellerUserId: config.sellerUserId,
    sourceAllowlist: createSourceAllowlist(config.webhookAllowedCidrs),
    trustedProxyCount: config.trustedProxyCount,
    bodyLimitBytes: config.bodyLimitBytes,
    store: (delivery) => withTimeout(batchedStore.store(delivery), STORE_TIMEOUT_MS),
    enqueue: (row) => batchedEnqueue.enqueue(row),
    spool,
    onSpooled: () => metrics.spooled.inc(),
    recordRejection: (rejected) => storeRejected(database.sql, rejected),
    unauthenticatedBytes: createUnauthenticatedBytes({
      ...config.unauthenticated,
      onDecision: ({ kind, keptBytes, skippedBytes, skippedRow }) => {
        if (keptBytes > 0) metrics.unauthenticatedKeptBytes.inc({ kind }, keptBytes);
        if (skippedBytes > 0) metrics.unauthenticatedSkippedBytes.inc({ kind }, skippedBytes);
        if (skippedRow) metrics.unauthenticatedSkippedRows.inc({ kind });
      },
    }),
    // Shared by every ingress process through Redis, so a fleet is no bigger a target.
    authFailures: config.authFailures
      ? createSharedAuthFailureLimiter(deps.producerRedis, {
          ...config.authFailures,
          keyPrefix: config.queuePrefix,
          onError: (error) =>
            logger.debug({ err: error }, 'auth-failure limit: Redis away, counting locally'),
        })
      : null,
    logger,
  };
  return {
    ingest,
    spool,
    async close() {
      await batchedStore.close();
      await batchedEnqueue.close();
      await spoolDrainer.stop();
      await spool.close();
    },
  };
}
