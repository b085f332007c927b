import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import type { Config, RedisTopology } from '../config/config.js';
import type { Sql } from '../db/client.js';
import { MIGRATIONS_FOLDER } from '../db/migrate.js';
import { appliedMigrationCount } from '../db/schemaVersion.js';
import { GatewayError, type GatewayClient } from '../gateway/index.js';
import { reasonOf } from '../runtime/dependencies.js';
import { UNGUARDED_POSTGRES_DRIVER } from '../runtime/postgresDriverGuard.js';
import { describeRedis, type RedisClient } from '../runtime/redis.js';

type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export interface DoctorDeps {
  readonly config: Config;
  readonly sql: Sql;
  /** Connected already, or failed to: its checks say which. */
  readonly redis: RedisClient;
  /** Why connecting to Redis failed, when it did (the client's own later errors say less). */
  readonly redisConnectError?: unknown;
  readonly gateway: GatewayClient | null;
  /** Whether the installed postgres.js carries patches/ (src/runtime/postgresDriverGuard.ts). */
  readonly postgresDriverGuarded: boolean;
}

/**
 * Every check `paymirror doctor` runs; each one catches its own failure. A service that does
 * not answer is named once, with where it was looked for; the checks that need it say so
 * instead of guessing (no "run migrate" when Postgres is down).
 */
export async function runChecks(deps: DoctorDeps): Promise<Check[]> {
  const { config } = deps;
  const postgresAddress = addressOf(config.databaseUrl);
  const postgres = await check('postgres', () => postgresVersion(deps.sql, postgresAddress));
  const redisTopology = describeRedis(config.redis);
  const redis = await check('redis', () =>
    redisReach(deps.redis, config.redis, deps.redisConnectError ?? null),
  );
  const nodes = redis.status === 'fail' ? null : await redisNodes(deps.redis).catch(() => null);
  const needsPostgres = (name: string, run: () => Promise<Omit<Check, 'name'>>) =>
    postgres.status === 'fail'
      ? skipped(name, `Postgres at ${postgresAddress} does not answer`)
      : check(name, run);
  const needsRedis = (
    name: string,
    run: (nodes: readonly RedisNodeClient[]) => Promise<Omit<Check, 'name'>>,
  ) =>
    nodes === null
      ? skipped(name, `Redis (${redisTopology}) does not answer`)
      : check(name, () => run(nodes));
  const baseUrl = await check('gateway base URL', () => gatewayBaseUrl(deps.gateway));
  try {
    return await Promise.all([
      check('secrets', () => secrets(config)),
      postgres,
      check('postgres driver', async () => postgresDriver(deps.postgresDriverGuarded)),
      needsPostgres('migrations', () => migrations(deps.sql)),
      redis,
      needsRedis('redis eviction', redisEviction),
      needsRedis('redis persistence', redisPersistence),
      baseUrl,
      // On a wrong base path every read answers a shape B 404, which would pass for "keys accepted".
      baseUrl.status === 'fail'
        ? skipped('gateway', 'GATEWAY_BASE_URL is wrong')
        : check('gateway', () => gatewayKeys(deps.gateway)),
    ]);
  } finally {
    for (const node of nodes ?? []) node.close();
  }
}

function skipped(name: string, why: string): Promise<Check> {
  return Promise.resolve({ name, status: 'fail', detail: `not checked: ${why}` });
}

function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

async function check(name: string, run: () => Promise<Omit<Check, 'name'>>): Promise<Check> {
  try {
    return { name, ...(await run()) };
  } catch (error) {
    return { name, status: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
}

async function secrets(config: Config): Promise<Omit<Check, 'name'>> {
  const missing = [
    config.postbackSecrets.length === 0 ? 'POSTBACK_SECRETS' : null,
    config.webhookTokens.length === 0 ? 'WEBHOOK_TOKENS' : null,
    config.sellerUserId === null ? 'SELLER_USER_ID' : null,
  ].filter((name) => name !== null);
  if (missing.length === 0) {
    return {
      status: 'ok',
      detail: `${config.postbackSecrets.length} postback secret(s), ${config.webhookTokens.length} webhook token(s)`,
    };
  }
  return {
    status: config.production ? 'fail' : 'warn',
    detail: `not set: ${missing.join(', ')}${config.production ? '' : ' (development mode makes them up)'}`,
  };
}

export function postgresDriver(guarded: boolean): Omit<Check, 'name'> {
  return guarded
    ? { status: 'ok', detail: 'postgres.js with patches/postgres+3.4.9.patch' }
    : { status: 'fail', detail: UNGUARDED_POSTGRES_DRIVER };
}

async function postgresVersion(sql: Sql, address: string): Promise<Omit<Check, 'name'>> {
  try {
    const [row] = await sql<
      { version: string }[]
    >`select current_setting('server_version') as version`;
    return { status: 'ok', detail: `PostgreSQL ${row?.version ?? '?'} at ${address}` };
  } catch (error) {
    return {
      status: 'fail',
      detail: `cannot reach Postgres at ${address} (${reasonOf(error)}): is it running? (DATABASE_URL)`,
    };
  }
}

async function migrations(sql: Sql): Promise<Omit<Check, 'name'>> {
  const journal = JSON.parse(
    await readFile(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as {
    entries: unknown[];
  };
  const applied = await appliedMigrationCount(sql);
  const known = journal.entries.length;
  return applied >= known
    ? { status: 'ok', detail: `${applied} of ${known} applied` }
    : { status: 'fail', detail: `${applied} of ${known} applied: run paymirror migrate` };
}

/** One Redis server of the topology (every master and replica), for per-node checks. */
interface RedisNodeClient {
  readonly address: string;
  readonly client: Redis;
  close(): void;
}

async function redisReach(
  redis: RedisClient,
  topology: RedisTopology,
  connectError: unknown,
): Promise<Omit<Check, 'name'>> {
  try {
    const info = await redis.info('server');
    const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? '?';
    return { status: 'ok', detail: `Redis ${version}, ${await topologyOf(redis, topology)}` };
  } catch (error) {
    const where = describeRedis(topology);
    return {
      status: 'fail',
      detail: `cannot reach Redis (${where}) (${reasonOf(connectError ?? error)}): is it running?`,
    };
  }
}

async function topologyOf(redis: RedisClient, topology: RedisTopology): Promise<string> {
  if (redis instanceof Cluster) {
    const info = String(await redis.cluster('INFO'));
    const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? '?';
    const flags = String(await redis.cluster('NODES'))
      .split('\n')
      .map((line) => (line.split(' ')[2] ?? '').split(','));
    const masters = flags.filter((node) => node.includes('master')).length;
    const replicas = flags.filter((node) => node.includes('slave')).length;
    return `cluster of ${masters} masters and ${replicas} replicas, cluster_state ${state}`;
  }
  const replication = await redis.info('replication');
  const replicas = Number(/connected_slaves:(\d+)/.exec(replication)?.[1] ?? 0);
  const master = `${redis.stream?.remoteAddress ?? redis.options.host}:${redis.stream?.remotePort ?? redis.options.port}`;
  return topology.kind === 'sentinel'
    ? `Sentinel master "${topology.name}" at ${master} with ${replicas} replica(s), ${topology.sentinels.length} sentinel(s) configured`
    : `single node with ${replicas} replica(s)`;
}

/**
 * Every server of the topology, each on a connection of its own: a cluster's masters and
 * replicas (from CLUSTER NODES), or a master and the replicas it reports.
 */
async function redisNodes(redis: RedisClient): Promise<RedisNodeClient[]> {
  const password =
    redis instanceof Cluster ? redis.options.redisOptions?.password : redis.options.password;
  const addresses =
    redis instanceof Cluster
      ? String(await redis.cluster('NODES'))
          .split('\n')
          .map((line) => line.split(' '))
          .filter((fields) => fields.length > 2 && !/fail|noaddr|handshake/.test(fields[2] ?? ''))
          .map((fields) => (fields[1] ?? '').split('@')[0] ?? '')
      : [
          `${redis.stream?.remoteAddress ?? redis.options.host}:${redis.stream?.remotePort ?? redis.options.port}`,
          ...[...(await redis.info('replication')).matchAll(/slave\d+:ip=([^,]+),port=(\d+)/g)].map(
            (match) => `${match[1]}:${match[2]}`,
          ),
        ];
  return addresses
    .filter((address) => /:\d+$/.test(address))
    .map((address) => {
      const at = address.lastIndexOf(':');
      const client = new Redis({
        host: address.slice(0, at),
        port: Number(address.slice(at + 1)),
        ...(password ? { password } : {}),
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 3000,
      });
      client.on('error', () => undefined);
      return { address, client, close: () => client.disconnect() };
    });
}

async function configGet(redis: Redis, key: string): Promise<string | null> {
  try {
    const answer = (await redis.config('GET', key)) as string[];
    return answer[1] ?? null;
  } catch {
    return null;
  }
}

/** Each node's finding, folded: ok when all are, else each finding with the nodes it is on. */
async function perNode(
  nodes: readonly RedisNodeClient[],
  judge: (node: RedisNodeClient) => Promise<Omit<Check, 'name'>>,
): Promise<Omit<Check, 'name'>> {
  const findings = await Promise.all(
    nodes.map(async (node) => ({
      node,
      finding: await judge(node).catch((error: unknown): Omit<Check, 'name'> => ({
        status: 'fail',
        detail: `does not answer (${reasonOf(error)})`,
      })),
    })),
  );
  if (nodes.length === 1) return findings[0]?.finding ?? { status: 'fail', detail: 'no node' };
  const bad = findings.filter(({ finding }) => finding.status !== 'ok');
  if (bad.length === 0) {
    return { status: 'ok', detail: `${findings[0]?.finding.detail} on all ${nodes.length} nodes` };
  }
  const byDetail = new Map<string, string[]>();
  for (const { node, finding } of bad) {
    byDetail.set(finding.detail, [...(byDetail.get(finding.detail) ?? []), node.address]);
  }
  return {
    status: bad.some(({ finding }) => finding.status === 'fail') ? 'fail' : 'warn',
    detail: [...byDetail]
      .map(([detail, addresses]) => `${addresses.join(', ')}: ${detail}`)
      .join('; '),
  };
}

function redisEviction(nodes: readonly RedisNodeClient[]): Promise<Omit<Check, 'name'>> {
  return perNode(nodes, async ({ client }) => {
    const policy = await configGet(client, 'maxmemory-policy');
    if (policy === null)
      return {
        status: 'warn',
        detail: 'CONFIG GET is not allowed: check maxmemory-policy is noeviction',
      };
    return policy === 'noeviction'
      ? { status: 'ok', detail: 'maxmemory-policy noeviction' }
      : {
          status: 'warn',
          detail: `maxmemory-policy ${policy}: Redis may evict queued jobs under memory pressure; set noeviction`,
        };
  });
}

function redisPersistence(nodes: readonly RedisNodeClient[]): Promise<Omit<Check, 'name'>> {
  return perNode(nodes, async ({ client }) => {
    const [appendonly, save] = await Promise.all([
      configGet(client, 'appendonly'),
      configGet(client, 'save'),
    ]);
    if (appendonly === null)
      return { status: 'warn', detail: 'CONFIG GET is not allowed: check persistence' };
    if (appendonly === 'yes') return { status: 'ok', detail: 'appendonly yes' };
    if (save)
      return {
        status: 'warn',
        detail: `appendonly no, RDB snapshots "${save}": jobs since the last snapshot are lost on a restart (the sweeper re-enqueues them from Postgres)`,
      };
    return {
      status: 'warn',
      detail:
        'no persistence: every queued job is lost on a restart (the sweeper re-enqueues them from Postgres, after SWEEP_AFTER_SECONDS)',
    };
  });
}

/** GET /api/transactions/{not a number} answers 400 on the right base path, 404 on a wrong one. */
async function gatewayBaseUrl(gateway: GatewayClient | null): Promise<Omit<Check, 'name'>> {
  if (!gateway) return { status: 'warn', detail: 'no GATEWAY_* keys: nothing to check' };
  const verdict = await gateway.checkBaseUrl();
  switch (verdict.kind) {
    case 'ok':
      return { status: 'ok', detail: 'GET /api/transactions/{not a number} answers 400' };
    case 'wrong':
      return {
        status: 'fail',
        detail: `GATEWAY_BASE_URL is wrong: ${verdict.detail} (a route the gateway does not have)`,
      };
    case 'unchecked':
      return {
        status: 'fail',
        detail: `GATEWAY_BASE_URL not checked: ${verdict.detail}; until it is, paymirror reads no answer as "not ours"`,
      };
  }
}

async function gatewayKeys(gateway: GatewayClient | null): Promise<Omit<Check, 'name'>> {
  if (!gateway)
    return {
      status: 'warn',
      detail: 'no GATEWAY_* keys: webhooks are not confirmed and nothing is reconciled',
    };
  try {
    await gateway.getTransaction(1);
    return { status: 'ok', detail: 'keys accepted' };
  } catch (error) {
    // 404 (no sale 1) and 403 (not ours) both mean the keys themselves were accepted.
    if (error instanceof GatewayError && error.isNotOurs)
      return { status: 'ok', detail: 'keys accepted' };
    if (error instanceof GatewayError && error.status === 401)
      return { status: 'fail', detail: 'the gateway refused the keys (401)' };
    throw error;
  }
}
