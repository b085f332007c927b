import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';

/**
 * Finds Postgres and Redis for the tests: TEST_DATABASE_URL / TEST_REDIS_URL when set, else the
 * local defaults when they answer, else containers (on machines with Docker). Also builds dist/
 * once, for the tests that run bin/paymirror as a user would, and gives the run a temporary
 * directory of its own (TMPDIR, which the test processes and what they start inherit), removed
 * at the end: spools, dotenv files and Redis's RDB files leave nothing behind.
 */
const LOCAL_DATABASE = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

const stops: (() => Promise<unknown>)[] = [];

export async function setup(project: TestProject): Promise<void> {
  useRunTemporaryDirectory();
  const databaseUrl =
    process.env.TEST_DATABASE_URL ??
    ((await postgresAnswers(LOCAL_DATABASE)) ? LOCAL_DATABASE : await startPostgresContainer());
  const redisUrl =
    process.env.TEST_REDIS_URL ??
    ((await redisAnswers(LOCAL_REDIS)) ? LOCAL_REDIS : await startRedisContainer());
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  // The CLI tests run bin/paymirror, which runs the built dist/, as users do.
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
}

export async function teardown(): Promise<void> {
  await Promise.all(stops.map((stop) => stop()));
}

function useRunTemporaryDirectory(): void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'paymirror-tests-'));
  // As /tmp's own mode: a process that drops root (PgBouncer runs as postgres) still reaches it.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  stops.push(async () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
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

async function startPostgresContainer(): Promise<string> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:16-alpine').start();
  stops.push(() => container.stop());
  return container.getConnectionUri();
}

async function startRedisContainer(): Promise<string> {
  const { RedisContainer } = await import('@testcontainers/redis');
  const container = await new RedisContainer('redis:7-alpine').start();
  stops.push(() => container.stop());
  return container.getConnectionUrl();
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}
