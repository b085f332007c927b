import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PgBouncer in front of the test Postgres, for tests that must run through a pooler. */
export interface TestPgBouncer {
  readonly port: number;
  /** `url` with host and port swapped for PgBouncer's, and `prepare=false` (see docs). */
  through(url: string): string;
  /** PgBouncer's own log, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

export class PgBouncerMissingError extends Error {
  override readonly name = 'PgBouncerMissingError';
  constructor() {
    super('pgbouncer is not installed: apt-get install -y pgbouncer (.ci/run does it)');
  }
}

export function pgbouncerBinary(): string {
  for (const candidate of [
    '/usr/sbin/pgbouncer',
    '/usr/bin/pgbouncer',
    '/usr/local/bin/pgbouncer',
  ]) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      continue;
    }
  }
  throw new PgBouncerMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts PgBouncer in transaction mode (the strictest common one) in front of `postgresUrl`. */
export async function startPgBouncer(
  postgresUrl: string,
  options: { poolSize?: number } = {},
): Promise<TestPgBouncer> {
  const binary = pgbouncerBinary();
  const target = new URL(postgresUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pm-pgbouncer-'));
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'server_login_retry = 1',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it switches to the postgres user, who must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o777);
    for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  }
  const child: ChildProcess = spawn(
    binary,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    try {
      return `${stderr}${readFileSync(join(dir, 'pgbouncer.log'), 'utf8')}`;
    } catch {
      return stderr;
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 10_000, () => child.exitCode !== null);
  } catch (error) {
    const text = log();
    await stop();
    throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${text}`);
  }
  return {
    port,
    through(url) {
      const routed = new URL(url);
      routed.hostname = '127.0.0.1';
      routed.port = String(port);
      routed.searchParams.set('prepare', 'false');
      return routed.toString();
    },
    log,
    stop,
  };
}

async function waitForPort(port: number, timeoutMs: number, dead: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead()) throw new Error('the process exited');
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
}
