import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import type { TestDatabase } from '../support/services.js';
import { postbackBody, sign } from '../support/fixtures.js';

/**
 * Shared pieces of the fault suite: a stream of distinct signed postbacks (one PAGO event per
 * sale), and the verdict every scenario prints: accepted, applied, lost, duplicated.
 */
export interface StreamResult {
  /** Sale ids whose delivery was answered 200 (accepted, duplicate or spooled). */
  readonly acknowledged: number[];
  /** Sale ids answered anything else, or not at all: the gateway would retry these. */
  readonly refused: number[];
  /** What each refused delivery got instead: `HTTP 503 {...}`, or the request's error. */
  readonly refusals: string[];
}

export async function streamPostbacks(
  url: () => string | null,
  ids: readonly number[],
  options: { concurrency?: number; onSent?: (sent: number) => void | Promise<void> } = {},
): Promise<StreamResult> {
  const acknowledged: number[] = [];
  const refused: number[] = [];
  const refusals: string[] = [];
  let next = 0;
  let sent = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const id = ids[index];
      if (id === undefined) return;
      const base = url();
      const raw = JSON.stringify(postbackBody({ id, status: 'PAGO' }));
      const refusal = base
        ? await fetch(`${base}/postbacks`, {
            method: 'POST',
            body: raw,
            headers: { 'content-type': 'application/json', 'x-signature': sign(raw) },
            signal: AbortSignal.timeout(10_000),
          }).then(
            async (response) =>
              response.status === 200 ? null : `HTTP ${response.status} ${await response.text()}`,
            (error: unknown) => String(error),
          )
        : 'no ingress listening';
      if (refusal === null) acknowledged.push(id);
      else {
        refused.push(id);
        refusals.push(`${id}: ${refusal}`);
      }
      sent += 1;
      await options.onSent?.(sent);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 10 }, worker));
  return { acknowledged, refused, refusals };
}

export interface Verdict {
  readonly accepted: number;
  readonly applied: number;
  readonly lost: number;
  readonly duplicated: number;
}

/** Each acknowledged sale must have exactly one PAGO history row: no more, no less. */
export async function verdict(db: TestDatabase, acknowledged: readonly number[]): Promise<Verdict> {
  const rows = await db.database.sql<{ resource_id: string; n: number }[]>`
    select resource_id, count(*)::int as n from status_history
     where resource_type = 'sale' and to_status = 'PAGO' and resource_id = any(${acknowledged as number[]})
     group by resource_id`;
  const applied = rows.length;
  const duplicated = rows.reduce((sum, row) => sum + (row.n - 1), 0);
  return {
    accepted: acknowledged.length,
    applied,
    lost: acknowledged.length - applied,
    duplicated,
  };
}

export async function allApplied(
  db: TestDatabase,
  acknowledged: readonly number[],
): Promise<boolean> {
  const v = await verdict(db, acknowledged);
  return v.lost === 0;
}

export function report(scenario: string, v: Verdict): void {
  process.stdout.write(
    `fault ${scenario}: accepted ${v.accepted}, applied ${v.applied}, lost ${v.lost}, duplicated ${v.duplicated}\n`,
  );
}

export function ids(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

// --- the machine's services: stopped and started for real, always brought back -------------

export const REDIS_START = [
  '--daemonize',
  'yes',
  '--bind',
  '127.0.0.1',
  '--port',
  '6379',
  '--save',
  '',
  '--appendonly',
  'no',
  // Not the working directory, where a stray dump.rdb would be loaded at start.
  '--dir',
  tmpdir(),
  '--dbfilename',
  'paymirror-faults-6379.rdb',
];

export async function redisAnswers(): Promise<boolean> {
  const redis = new Redis('redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

export async function stopRedis(): Promise<void> {
  // Its exit code says nothing: redis-cli exits non-zero when the server closes the connection
  // on shutdown. Whether Redis stopped is what is checked.
  await serviceCommand('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'shutdown', 'nosave']);
  await until(async () => !(await redisAnswers()), 'Redis to stop');
}

export async function startRedis(): Promise<void> {
  if (await redisAnswers()) return;
  await serviceCommand('redis-server', REDIS_START, { mustSucceed: true });
  await until(redisAnswers, 'Redis to start');
}

/**
 * Runs a command that stops or starts a service, without blocking this process: the ingress
 * under test runs in it, and must go on answering while Postgres or Redis stops and starts (a
 * blocking call would hold every answer for as long as a shutdown checkpoint takes, and the
 * clients' time-outs would fire the moment it returns). Resolves on the command's exit, not on
 * its output's end: a daemon it starts may keep inherited pipes open, so none are given.
 */
function serviceCommand(
  command: string,
  args: readonly string[],
  { mustSucceed = false } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!mustSucceed || code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}`));
    });
  });
}

/** pg_ctlcluster on this machine's one cluster (stop, start), which must succeed. */
function pgCtlCluster(...action: string[]): Promise<void> {
  const args = ['--skip-systemctl-redirect', pgVersion(), 'main', ...action];
  return serviceCommand('pg_ctlcluster', args, { mustSucceed: true });
}

function pgVersion(): string {
  const versions = readdirSync('/etc/postgresql');
  if (!versions[0]) throw new Error('no PostgreSQL cluster under /etc/postgresql');
  return versions[0];
}

export async function postgresAnswers(): Promise<boolean> {
  const sql = postgres('postgres://postgres@127.0.0.1:5432/postgres', {
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

export async function stopPostgres(): Promise<void> {
  await pgCtlCluster('stop', '-m', 'fast');
  await until(async () => !(await postgresAnswers()), 'Postgres to stop');
}

export async function startPostgres(): Promise<void> {
  if (await postgresAnswers()) return;
  await pgCtlCluster('start');
  await until(postgresAnswers, 'Postgres to start');
}

export async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
