import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './pgbouncer.js';

export type TopologyKind = 'single' | 'cluster' | 'sentinel';

/** A Redis of its own for a fleet test, with the settings that point paymirror at it. */
export interface RedisTopology {
  readonly kind: TopologyKind;
  readonly env: Record<string, string>;
  /** Promotes a replica (cluster, sentinel); restarts nothing for a single node. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisTopology(kind: TopologyKind): Promise<RedisTopology> {
  switch (kind) {
    case 'single':
      return startSingle();
    case 'cluster':
    case 'sentinel':
      throw new Error(`${kind}: not wired yet`);
  }
}

async function startSingle(): Promise<RedisTopology> {
  const port = await freePort();
  const child = startRedisServer(port, []);
  await waitForPing(port);
  return {
    kind: 'single',
    env: { REDIS_URL: `redis://127.0.0.1:${port}` },
    failover: () => Promise.resolve(),
    stop: () => stopProcess(child),
  };
}

export function startRedisServer(port: number, extra: readonly string[]): ChildProcess {
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      ...extra,
    ],
    { stdio: 'ignore' },
  );
}

export async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      if ((await redis.ping()) === 'PONG') return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis on ${port} did not answer`);
    } finally {
      redis.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
