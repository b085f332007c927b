import { userInfo } from 'node:os';
import { connectPostgres } from '../db/connect.js';
import type { RedisTopology } from '../config/config.js';
import { createProbeRedis, describeRedis, redisSetting } from './redis.js';

/**
 * Commands check their services before doing anything, so a dead one is one clear line within
 * seconds ("cannot reach Redis at 127.0.0.1:6379 (connection refused)") instead of a client
 * retrying silently forever.
 */
export class DependencyUnreachableError extends Error {
  override readonly name = 'DependencyUnreachableError';
  constructor(
    readonly service: 'Postgres' | 'Redis',
    readonly address: string,
    readonly reason: string,
    readonly setting: string,
  ) {
    super(
      `cannot reach ${service} at ${address} (${reason}): is it running? ` +
        `(${setting} says where it is)`,
    );
  }
}

/**
 * The server answered and refused the credentials: it is running, so "is it running?" would
 * send the operator the wrong way. The message names the user, never the password.
 */
class PostgresAuthenticationError extends Error {
  override readonly name = 'PostgresAuthenticationError';
  /** The configuration is wrong (exit code 2), not the service. */
  readonly exitCode = 2;
  constructor(address: string, user: string, detail: string, setting: string) {
    super(
      `Postgres at ${address} refused the connection: authentication failed for user ` +
        `"${user}" (${detail}); check the user and password in ${setting}`,
    );
  }
}

const DEPENDENCY_TIMEOUT_MS = 10_000;

const AUTHENTICATION_FAILED = new Set(['28P01', '28000']);

export async function requirePostgres(
  url: string,
  setting = 'DATABASE_URL',
  timeoutMs = DEPENDENCY_TIMEOUT_MS,
): Promise<void> {
  const sql = connectPostgres(url, {
    max: 1,
    connect_timeout: Math.ceil(timeoutMs / 1000),
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
  } catch (error) {
    // The server answered: it is reachable; whoever needs the database says what to do.
    if ((error as { code?: string }).code === '3D000') return;
    // PgBouncer says it in a pooler error of its own, without the SQLSTATE.
    if (error instanceof Error && /database ".*" does not exist/.test(error.message)) return;
    if (AUTHENTICATION_FAILED.has((error as { code?: string }).code ?? '')) {
      throw new PostgresAuthenticationError(
        addressOf(url, 5432),
        userOf(url),
        (error as Error).message.replace(/\w+:\/\/\S+/g, '<url>').slice(0, 200),
        setting,
      );
    }
    throw new DependencyUnreachableError(
      'Postgres',
      addressOf(url, 5432),
      reasonOf(error),
      setting,
    );
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export async function requireRedis(
  topology: RedisTopology,
  timeoutMs = DEPENDENCY_TIMEOUT_MS,
): Promise<void> {
  const redis = createProbeRedis(topology, timeoutMs);
  let last: unknown = null;
  redis.on('error', (error: unknown) => (last = error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new DependencyUnreachableError(
      'Redis',
      describeRedis(topology),
      reasonOf(last ?? error),
      redisSetting(topology),
    );
  } finally {
    redis.disconnect();
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || userInfo().username;
  } catch {
    return '(unparseable URL)';
  }
}

function addressOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || '127.0.0.1'}:${parsed.port || defaultPort}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** The driver's error in a few words, without the URL (it may carry a password). */
export function reasonOf(error: unknown): string {
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'CONNECT_TIMEOUT':
      return 'no answer in time';
    case '28P01':
    case '28000':
      return 'authentication failed';
    case 'NOAUTH':
    case 'WRONGPASS':
      return 'authentication failed';
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/ETIMEDOUT|timed? ?out/i.test(message)) return 'no answer in time';
  if (/NOAUTH|WRONGPASS|invalid password/i.test(message)) return 'authentication failed';
  if (/ECONNREFUSED/.test(message)) return 'connection refused';
  return message.replace(/\w+:\/\/\S+/g, '<url>').slice(0, 200);
}
