import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import type { Sql } from '../db/client.js';
import { MIGRATIONS_FOLDER } from '../db/migrate.js';
import { GatewayError, type GatewayClient } from '../gateway/index.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export interface DoctorDeps {
  readonly config: Config;
  readonly sql: Sql;
  readonly redis: Redis;
  readonly gateway: GatewayClient | null;
}

/** Every check `paymirror doctor` runs; each one catches its own failure. */
export async function runChecks(deps: DoctorDeps): Promise<Check[]> {
  return Promise.all([
    check('secrets', () => secrets(deps.config)),
    check('postgres', () => postgresVersion(deps.sql)),
    check('migrations', () => migrations(deps.sql)),
    check('redis', () => redisPing(deps.redis)),
    check('redis eviction', () => redisEviction(deps.redis)),
    check('redis persistence', () => redisPersistence(deps.redis)),
    check('gateway', () => gatewayKeys(deps.gateway)),
  ]);
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

async function postgresVersion(sql: Sql): Promise<Omit<Check, 'name'>> {
  const [row] = await sql<
    { version: string }[]
  >`select current_setting('server_version') as version`;
  return { status: 'ok', detail: `PostgreSQL ${row?.version ?? '?'}` };
}

async function migrations(sql: Sql): Promise<Omit<Check, 'name'>> {
  const journal = JSON.parse(
    await readFile(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as {
    entries: unknown[];
  };
  const [row] = await sql<{ applied: number }[]>`
    select count(*)::int as applied from drizzle.__drizzle_migrations`.catch(() => [
    { applied: 0 },
  ]);
  const applied = row?.applied ?? 0;
  const known = journal.entries.length;
  return applied >= known
    ? { status: 'ok', detail: `${applied} of ${known} applied` }
    : { status: 'fail', detail: `${applied} of ${known} applied: run paymirror migrate` };
}

async function redisPing(redis: Redis): Promise<Omit<Check, 'name'>> {
  const info = await redis.info('server');
  const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? '?';
  return { status: 'ok', detail: `Redis ${version}` };
}

async function configGet(redis: Redis, key: string): Promise<string | null> {
  try {
    const answer = (await redis.config('GET', key)) as string[];
    return answer[1] ?? null;
  } catch {
    return null;
  }
}

async function redisEviction(redis: Redis): Promise<Omit<Check, 'name'>> {
  const policy = await configGet(redis, 'maxmemory-policy');
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
}

async function redisPersistence(redis: Redis): Promise<Omit<Check, 'name'>> {
  const [appendonly, save] = await Promise.all([
    configGet(redis, 'appendonly'),
    configGet(redis, 'save'),
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
