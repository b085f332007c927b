import { cpus, loadavg, release, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import { connectPostgres } from '../../src/db/connect.js';
import { POSTGRES_URL, REDIS_URL } from './services.js';

export interface Machine {
  readonly cpus: number;
  readonly cpu_model: string;
  readonly memory_gb: number;
  readonly kernel: string;
  readonly node: string;
  readonly postgres: string;
  readonly redis: string;
  /** 1-minute load average when the run started: other work on the machine skews figures. */
  readonly loadavg_at_start: number;
}

export async function describeMachine(): Promise<Machine> {
  const sql = connectPostgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const [pg] = await sql<{ version: string }[]>`select version()`;
    const info = await redis.info('server');
    const settings = await sql<{ name: string; setting: string }[]>`
      select name, setting from pg_settings
       where name in ('synchronous_commit', 'fsync', 'shared_buffers')`;
    return {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(totalmem() / 2 ** 30),
      kernel: release(),
      node: process.version,
      postgres: `${(pg?.version ?? '').split(' ').slice(0, 2).join(' ')} (${settings
        .map((s) => `${s.name}=${s.setting}`)
        .join(', ')})`,
      redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
      loadavg_at_start: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    };
  } finally {
    await sql.end({ timeout: 5 });
    redis.disconnect();
  }
}
