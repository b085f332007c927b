import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './pgbouncer.js';

const run = promisify(execFile);

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
      return startCluster();
    case 'sentinel':
      return startSentinels();
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

/** Tears down what was started so far, whatever failed: no redis-server is left behind. */
async function withCleanup<T>(
  children: ChildProcess[],
  dir: string,
  build: () => Promise<T>,
): Promise<T> {
  try {
    return await build();
  } catch (error) {
    await Promise.all(children.map(stopProcess));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** 3 masters and 3 replicas; failover() promotes a replica with CLUSTER FAILOVER. */
async function startCluster(): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-redis-cluster-'));
  const children: ChildProcess[] = [];
  return withCleanup(children, dir, async () => {
    const ports: number[] = [];
    for (let i = 0; i < 6; i++) ports.push(await freeClusterPort(ports));
    for (const port of ports) {
      children.push(
        startRedisServer(port, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--dir',
          dir,
        ]),
      );
    }
    await Promise.all(ports.map((port) => waitForPing(port)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await waitForClusterOk(ports);
    return {
      kind: 'cluster' as const,
      env: { REDIS_CLUSTER_NODES: ports.map((port) => `127.0.0.1:${port}`).join(',') },
      async failover() {
        const replica = await someReplica(ports);
        await command(replica, ['CLUSTER', 'FAILOVER']);
        await waitUntil(async () => (await command(replica, ['ROLE']))[0] === 'master', 20_000);
        await waitForClusterOk(ports);
      },
      async stop() {
        await Promise.all(children.map(stopProcess));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

/** 1 master, 1 replica, 3 sentinels; failover() is SENTINEL FAILOVER. */
async function startSentinels(): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-redis-sentinel-'));
  const children: ChildProcess[] = [];
  const name = 'paymirror';
  return withCleanup(children, dir, async () => {
    const master = await freePort();
    const replica = await freePort();
    children.push(startRedisServer(master, []));
    children.push(startRedisServer(replica, ['--replicaof', '127.0.0.1', String(master)]));
    await Promise.all([waitForPing(master), waitForPing(replica)]);
    const sentinels: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${master} 2`,
          `sentinel down-after-milliseconds ${name} 2000`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      children.push(spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' }));
      sentinels.push(port);
    }
    await Promise.all(sentinels.map((port) => waitForPing(port)));
    // Every sentinel must know the replica before a failover can pick it.
    await waitUntil(async () => {
      const known = await Promise.all(
        sentinels.map((port) => command(port, ['SENTINEL', 'REPLICAS', name])),
      );
      return known.every((replicas) => Array.isArray(replicas) && replicas.length > 0);
    }, 30_000);
    const masterPort = async () =>
      Number(
        (
          (await command(sentinels[0] as number, [
            'SENTINEL',
            'GET-MASTER-ADDR-BY-NAME',
            name,
          ])) as string[]
        )[1],
      );
    return {
      kind: 'sentinel' as const,
      env: {
        REDIS_SENTINELS: sentinels.map((port) => `127.0.0.1:${port}`).join(','),
        REDIS_SENTINEL_NAME: name,
      },
      async failover() {
        const before = await masterPort();
        await command(sentinels[0] as number, ['SENTINEL', 'FAILOVER', name]);
        await waitUntil(async () => {
          const now = await masterPort();
          return now !== before && (await command(now, ['ROLE']))[0] === 'master';
        }, 30_000);
      },
      async stop() {
        await Promise.all(children.map(stopProcess));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: readonly number[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (taken.includes(port)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function someReplica(ports: readonly number[]): Promise<number> {
  for (const port of ports) {
    if ((await command(port, ['ROLE']))[0] === 'slave') return port;
  }
  throw new Error('no replica in the cluster');
}

/** Every node says the cluster is ok and sees half of the nodes as masters, half as replicas. */
async function waitForClusterOk(ports: readonly number[]): Promise<void> {
  await waitUntil(async () => {
    const infos = await Promise.all(ports.map((port) => command(port, ['CLUSTER', 'INFO'])));
    if (!infos.every((info) => String(info).includes('cluster_state:ok'))) return false;
    const views = await Promise.all(ports.map((port) => command(port, ['CLUSTER', 'NODES'])));
    return views.every((view) => {
      const flags = String(view)
        .split('\n')
        .map((line) => line.split(' ')[2] ?? '');
      const count = (role: string) => flags.filter((f) => f.split(',').includes(role)).length;
      return count('master') === ports.length / 2 && count('slave') === ports.length / 2;
    });
  }, 30_000);
}

async function command(port: number, args: readonly string[]): Promise<unknown[]> {
  const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const answer = await redis.call(args[0] as string, ...args.slice(1));
    return Array.isArray(answer) ? answer : [answer];
  } finally {
    redis.disconnect();
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`redis topology: not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
      // Never the working directory: a replica's full sync writes an RDB file there, and a
      // server started later in that directory would load it.
      '--dir',
      tmpdir(),
      '--dbfilename',
      `paymirror-test-${port}.rdb`,
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
