import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type postgres from 'postgres';
import { connectPostgres } from '../../src/db/connect.js';
import { runMigrations } from '../../src/db/migrate.js';

export const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A throwaway database and BullMQ prefix for one scenario; `drop()` removes both. */
export interface ScenarioServices {
  readonly databaseUrl: string;
  /** The database's name: /proc tells its backends by it (snapshotCpu). */
  readonly databaseName: string;
  readonly redisUrl: string;
  readonly queuePrefix: string;
  drop(): Promise<void>;
}

const open = new Set<ScenarioServices>();

export async function createScenarioServices(
  scenario: string,
  options: { migrate: boolean },
): Promise<ScenarioServices> {
  const suffix = randomBytes(4).toString('hex');
  const name = `pm_bench_${scenario}_${suffix}`;
  const databaseUrl = withDatabase(POSTGRES_URL, name);
  const queuePrefix = `pmbench-${scenario}-${suffix}`;
  let dropped = false;
  const services: ScenarioServices = {
    databaseUrl,
    databaseName: name,
    redisUrl: REDIS_URL,
    queuePrefix,
    async drop() {
      if (dropped) return;
      dropped = true;
      open.delete(services);
      await Promise.allSettled([dropDatabase(name), deleteKeys(queuePrefix)]);
    },
  };
  open.add(services);
  if (options.migrate) {
    await runMigrations(databaseUrl);
  } else {
    await admin((sql) => sql.unsafe(`create database "${name}"`));
  }
  return services;
}

/** Drops whatever is still open: for the failure path. */
export async function dropAllServices(): Promise<void> {
  await Promise.allSettled([...open].map((services) => services.drop()));
}

async function dropDatabase(name: string): Promise<void> {
  await admin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
}

async function admin<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = connectPostgres(withDatabase(POSTGRES_URL, 'postgres'), {
    max: 1,
    onnotice: () => {},
  });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function deleteKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  try {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs `work` with a small client on the scenario's database. */
export async function withSql<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = connectPostgres(url, { max: 2, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Waits until Postgres and Redis both answer (after a restart by other work on the machine). */
export async function waitForServices(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await Promise.all([
      admin((sql) => sql`select 1`).then(
        () => true,
        () => false,
      ),
      pingRedis(),
    ]);
    if (up.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('Postgres or Redis did not come back');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function pingRedis(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, {
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
