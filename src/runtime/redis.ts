import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTopology } from '../config/config.js';
import { withTimeout } from '../lib/withTimeout.js';

/** One node, a Sentinel-managed master, or a cluster: BullMQ takes either client. */
export type RedisClient = Redis | Cluster;

/**
 * Producers fail fast when Redis is away (the inbox row is already durable and the sweeper
 * will enqueue it); workers wait and reconnect for as long as it takes, as BullMQ requires.
 */
export function createProducerRedis(topology: RedisTopology): RedisClient {
  return connect(topology, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    lazyConnect: false,
  });
}

export function createWorkerRedis(topology: RedisTopology): RedisClient {
  return connect(topology, { maxRetriesPerRequest: null });
}

/** A command's short-lived connection (a few retries, then an error). */
export function createCommandRedis(topology: RedisTopology): RedisClient {
  return connect(topology, { maxRetriesPerRequest: 3 });
}

/** One attempt, no retries: for checking that Redis answers at all. */
export function createProbeRedis(topology: RedisTopology, timeoutMs: number): RedisClient {
  return connect(
    topology,
    {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    },
    { clusterRetryStrategy: () => null, lazyConnect: true },
  );
}

/** The setting that says where this topology is, for messages. */
export function redisSetting(topology: RedisTopology): string {
  return { single: 'REDIS_URL', cluster: 'REDIS_CLUSTER_NODES', sentinel: 'REDIS_SENTINELS' }[
    topology.kind
  ];
}

function connect(
  topology: RedisTopology,
  options: RedisOptions,
  clusterExtra: Partial<ClusterOptions> = {},
): RedisClient {
  switch (topology.kind) {
    case 'single':
      return new Redis(topology.url, options);
    case 'sentinel':
      return new Redis({
        ...options,
        sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
        name: topology.name,
        ...(topology.password ? { password: topology.password } : {}),
        // A failover promotes a replica: follow it, and never write to a demoted master.
        failoverDetector: true,
        ...(options.retryStrategy ? { sentinelRetryStrategy: () => null } : {}),
      });
    case 'cluster': {
      const { enableOfflineQueue, ...perNode } = options;
      const cluster: ClusterOptions = {
        redisOptions: {
          ...perNode,
          ...(topology.password ? { password: topology.password } : {}),
        },
        ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
        // During a failover the cluster answers CLUSTERDOWN or MOVED for a moment: retry.
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        ...clusterExtra,
      };
      return new Cluster(
        topology.nodes.map(({ host, port }) => ({ host, port })),
        cluster,
      );
    }
  }
}

/** Where a topology is, for messages: never a password. */
export function describeRedis(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'single': {
      try {
        const url = new URL(topology.url);
        return `${url.hostname}:${url.port || 6379}`;
      } catch {
        return '(unparseable REDIS_URL)';
      }
    }
    case 'cluster':
      return `cluster ${topology.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
    case 'sentinel':
      return `sentinel master "${topology.name}" via ${topology.sentinels.map((n) => `${n.host}:${n.port}`).join(',')}`;
  }
}

/**
 * Every queue's BullMQ prefix. In a cluster each queue's keys must share one hash slot (BullMQ's
 * scripts touch several keys at once): the prefix is the hash tag `{<prefix>:<queue>}`, one per
 * queue so the queues spread over the masters. Elsewhere the plain prefix, as key names have
 * always been.
 */
export function queuePrefixFor(
  config: { readonly queuePrefix: string; readonly redis: RedisTopology },
  queue: string,
): string {
  return config.redis.kind === 'cluster' ? `{${config.queuePrefix}:${queue}}` : config.queuePrefix;
}

export async function pingRedis(redis: RedisClient, timeoutMs: number): Promise<string | null> {
  try {
    const answer = await withTimeout(redis.ping(), timeoutMs);
    return answer === 'PONG' ? null : `unexpected answer ${answer}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Waits a moment for a fail-fast connection to be ready, so the first commands of a fresh
 * process do not fail for no reason; Redis being down is not fatal, so this never throws.
 */
export async function settle(redis: RedisClient, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await withTimeout(
    new Promise<void>((resolve) => redis.once('ready', () => resolve())),
    timeoutMs,
  ).catch(() => undefined);
}
