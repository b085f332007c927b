import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config } from '../config/config.js';
import { createDatabase } from '../db/client.js';
import { createRequestListener, type HttpAppDeps } from '../ingress/app.js';
import type { Logger } from '../log/logger.js';
import { withTimeout } from '../lib/withTimeout.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import { TRANSITIONS_QUEUE, type RetryPolicy } from '../queue/catalog.js';
import { closeLaneQueues, createLaneQueues, laneQueueList } from '../queue/lanes.js';
import { createTransitionQueue } from '../feed/transitionPublisher.js';
import { createGatewayBaseUrlGuard } from './gatewayBaseUrl.js';
import { gatewayBudgetReader, gatewayClientFor } from './gatewayClient.js';
import { queueCountsByName, queueDepths, queueOldestAgeByName } from './observability.js';
import { inboxCountsByState, oldestPendingAgeSeconds } from '../inbox/sql/counts.js';
import { unresolvedAttemptCounts } from '../operations/sql.js';
import { attentionCounts } from '../mirror/sql/records.js';
import {
  createProducerRedis,
  createWorkerRedis,
  pingRedis,
  queuePrefixFor,
  settle,
} from './redis.js';
import { applicationNameFor, type Role } from './roles.js';

export interface RunningPaymirror {
  /** Where the HTTP server listens, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  /** Where /metrics, bull-board and the console are: the admin listener, or `url` when shared. */
  readonly metricsUrl: string;
  readonly metrics: Metrics;
  /** Drains: stop accepting, finish in-flight requests and jobs, close every connection. */
  close(): Promise<void>;
}

/**
 * Starts the given roles in this process. Every role serves /healthz and /readyz on PORT, and
 * /metrics (with bull-board and the console) on the admin listener.
 */
export async function startPaymirror(
  config: Config,
  roles: ReadonlySet<Role>,
  logger: Logger,
): Promise<RunningPaymirror> {
  const metrics = createMetrics({ silenceDetector: roles.has('ingress') });
  const database = createDatabase(config.databaseUrl, {
    max: config.dbPoolMax,
    applicationName: applicationNameFor(roles),
  });
  const producerRedis = createProducerRedis(config.redis);
  const prefixFor = (queue: string) => queuePrefixFor(config, queue);
  producerRedis.on('error', (error) => logger.debug({ err: error }, 'redis (producer) error'));
  await settle(producerRedis, 3000);
  // Every role adds jobs: the ingress and the sweeper to either lane, the signed lane's workers
  // to the confirmation lane.
  const lanes = createLaneQueues(producerRedis, prefixFor);
  for (const queue of laneQueueList(lanes)) {
    queue.on('error', (error) => logger.debug({ err: error }, 'queue error'));
  }
  const retry: RetryPolicy = { attempts: config.jobAttempts, backoffMs: config.jobBackoffMs };

  // The gateway budget is the account's: every process draws from one bucket in Redis.
  const baseUrlGuard =
    config.gateway && (roles.has('worker') || roles.has('scheduler'))
      ? createGatewayBaseUrlGuard(config.gateway, metrics, logger)
      : null;
  const notOursGate = baseUrlGuard?.gate ?? null;
  const gateway = gatewayClientFor(config, metrics, producerRedis, 'all', notOursGate);
  if (baseUrlGuard && gateway) {
    // A wrong base path refuses to start (exit 2): nothing is open yet but these two clients.
    await baseUrlGuard.start(gateway).catch(async (error: unknown) => {
      await closeLaneQueues(lanes);
      producerRedis.disconnect();
      await database.close();
      throw error;
    });
  }
  const workerRedis =
    roles.has('worker') || roles.has('scheduler') ? createWorkerRedis(config.redis) : null;
  const laneDeps = workerRedis
    ? {
        sql: database.sql,
        gateway,
        holdUnconfirmable: config.unconfirmedWebhooks === 'hold',
        policy: config.watchPolicy,
        connection: workerRedis,
        prefixFor,
        lockSeconds: config.jobLockSeconds,
        logger,
        metrics,
      }
    : null;
  // Each role's modules are loaded only where it runs: an ingress never carries the writer.
  const workers =
    laneDeps && roles.has('worker')
      ? (await import('./workerRole.js')).startWorkerRole({
          config,
          lanes,
          lane: laneDeps,
          gateway,
          producerRedis,
          notOursGate,
          retry,
          metrics,
        })
      : [];

  const transitions =
    roles.has('scheduler') && config.transitions.enabled && workerRedis
      ? createTransitionQueue(workerRedis, prefixFor(TRANSITIONS_QUEUE))
      : null;
  const stopScheduler =
    roles.has('scheduler') && workerRedis
      ? await (
          await import('./schedulerRole.js')
        ).startSchedulerRole({
          config,
          database,
          lanes,
          transitions,
          redis: workerRedis,
          gateway,
          metrics,
          logger,
        })
      : null;

  const ingress = roles.has('ingress')
    ? await (
        await import('./ingressRole.js')
      ).startIngressRole({
        config,
        database,
        lanes,
        gatewayConfigured: gateway !== null,
        retry,
        producerRedis,
        metrics,
        logger,
      })
    : null;
  const spool = ingress?.spool ?? null;

  // Every queue this process knows, the feed too: a feed nobody consumes must show.
  const observedQueues = [...laneQueueList(lanes), ...(transitions ? [transitions] : [])];
  metrics.setSources(
    {
      oldestPendingAgeSeconds: () => oldestPendingAgeSeconds(database.sql),
      inboxCounts: () => inboxCountsByState(database.sql),
      ...(spool ? { spoolPending: () => spool.pending() } : {}),
      cashoutsUnresolved: () => unresolvedAttemptCounts(database.sql),
      recordsNeedingAttention: () => attentionCounts(database.sql),
      queueCounts: () => queueCountsByName(observedQueues),
      queueOldestAgeSeconds: () => queueOldestAgeByName(observedQueues),
    },
    config.metricsCacheSeconds * 1000,
  );

  const httpDeps: HttpAppDeps = {
    metrics,
    logger,
    ingest: ingress?.ingest ?? null,
    admin: config.adminToken
      ? {
          token: config.adminToken,
          trustedProxies: config.trustedProxyCount,
          board: { queues: observedQueues, write: config.adminWrite },
          console: {
            sql: database.sql,
            queueDepths: () => queueDepths(observedQueues),
            gatewayBudget: gatewayBudgetReader(config, metrics, producerRedis),
            now: () => new Date(),
          },
        }
      : null,
    readiness: {
      async check() {
        // The answer is public: it names what is down, and the driver's words go to the log.
        const down = (dependency: string, error: unknown) => {
          logger.warn({ err: error, dependency }, 'readiness: dependency down');
          return 'down';
        };
        const [postgres, redis] = await Promise.all([
          withTimeout(database.sql`select 1`, 2000).then(
            () => null,
            (error: unknown) => down('postgres', error),
          ),
          pingRedis(producerRedis, 2000).then((problem) =>
            problem === null ? null : down('redis', problem),
          ),
        ]);
        const spooled = spool ? await spool.pending().catch(() => 0) : 0;
        const notes = {
          ...(spooled > 0
            ? { spool: `degraded: ${spooled} deliveries spooled, waiting for Postgres` }
            : {}),
          // Reported, not failing: reads still work, only "not ours" waits for the check.
          ...(baseUrlGuard ? { gateway: baseUrlGuard.describe() } : {}),
        };
        return {
          checks: { postgres, redis },
          ...(Object.keys(notes).length > 0 ? { notes } : {}),
        };
      },
    },
    operations: config.adminListener === 'public',
  };
  const server = await listen(
    createRequestListener(httpDeps),
    config.host,
    config.port,
    config,
  ).catch((error: unknown) => {
    throw new ListenError(`PORT (${config.host}:${config.port})`, error);
  });
  // The admin listener: /metrics, bull-board and the console apart from the public port (with
  // the probes too), on loopback unless METRICS_HOST says otherwise.
  const admin = config.adminListener;
  const operations =
    admin === 'public'
      ? null
      : await listen(
          createRequestListener({ ...httpDeps, ingest: null, operations: true }),
          admin.host,
          admin.port,
          config,
        ).catch(async (error: unknown) => {
          await closeServer(server, 0);
          throw new ListenError(`METRICS_HOST:METRICS_PORT (${admin.host}:${admin.port})`, error);
        });
  const url = urlOf(server);
  const metricsUrl = operations ? urlOf(operations) : url;
  logger.info({ url, metricsUrl, roles: [...roles] }, 'paymirror started');

  let closing: Promise<void> | null = null;
  return {
    url,
    metricsUrl,
    metrics,
    close() {
      closing ??= (async () => {
        await closeServer(server, config.shutdownTimeoutSeconds * 1000);
        if (operations) await closeServer(operations, config.shutdownTimeoutSeconds * 1000);
        // What the last requests left waiting is stored and enqueued before the pools close.
        await ingress?.close();
        await stopScheduler?.();
        await baseUrlGuard?.stop();
        for (const worker of workers) await worker.close();
        await transitions?.close();
        await closeLaneQueues(lanes);
        workerRedis?.disconnect();
        producerRedis.disconnect();
        await database.close();
        logger.info('paymirror stopped');
      })();
      return closing;
    },
  };
}

/** A listener that could not bind (a port in use, an address not on this host). */
class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(where: string, cause: unknown) {
    super(`cannot listen on ${where}: ${listenReason(cause)}`, { cause });
  }
}

function listenReason(cause: unknown): string {
  switch ((cause as { code?: string } | null)?.code) {
    case 'EADDRINUSE':
      return 'the port is in use (another paymirror, or another program); choose a free one or stop what holds it';
    case 'EADDRNOTAVAIL':
      return 'the address is not on this host';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
  }
  return cause instanceof Error ? cause.message : String(cause);
}

async function listen(
  listener: RequestListener,
  host: string,
  port: number,
  config: Config,
): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      // Node checks both timeouts only this often (default 30 s): well within the shorter one.
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.http.headersTimeoutMs / 4)),
    },
    listener,
  );
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

async function closeServer(server: Server, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(force);
}
