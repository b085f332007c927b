import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { rssMb, spawnChild, waitForHttp, type Child } from './processes.js';
import { BENCH_POSTBACK_SECRET, BENCH_SELLER_USER_ID, BENCH_WEBHOOK_TOKEN } from './postbacks.js';
import type { ScenarioServices } from './services.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A server under test: its process, where it listens. */
export interface Server {
  readonly child: Child;
  readonly url: string;
  /** Where its /metrics is: paymirror's admin listener (METRICS_PORT), else `url`. */
  readonly metricsUrl: string;
  /** RSS once it answered its first request, before any load. */
  readonly startRssMb: number | null;
  /** Its database (to count the CPU of its Postgres backends), if it has one. */
  readonly databaseName: string | null;
}

async function ready(
  child: Child,
  port: number,
  databaseUrl?: string,
  metricsPort?: number,
): Promise<Server> {
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${url}/healthz`);
  return {
    child,
    url,
    metricsUrl: metricsPort === undefined ? url : `http://127.0.0.1:${metricsPort}`,
    startRssMb: await rssMb(child.pid),
    databaseName: databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : null,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The environment paymirror is started with in every scenario. */
function paymirrorEnv(services: ScenarioServices, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    QUEUE_PREFIX: services.queuePrefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    POSTBACK_SECRETS: BENCH_POSTBACK_SECRET,
    WEBHOOK_TOKENS: BENCH_WEBHOOK_TOKEN,
    SELLER_USER_ID: String(BENCH_SELLER_USER_ID),
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: 'false',
    // No gateway in most scenarios (they send signed postbacks only); the lanes scenario
    // sets its gateway's keys.
    UNCONFIRMED_WEBHOOKS: 'hold',
  };
}

/**
 * `bin/paymirror start --role <roles>`, as an operator runs it (built dist/), from this checkout
 * or from `root` (a baseline checkout). Node flags (a CPU profile) go through
 * PAYMIRROR_NODE_FLAGS, so the process keeps the heap flags bin/paymirror starts node with: a
 * profiled ingress without them ran a fraction of the full GCs of the one the bench measures.
 * A baseline whose bin/paymirror predates PAYMIRROR_NODE_FLAGS, or a flag with a space in it,
 * runs node itself, without them.
 */
export async function startPaymirrorProcess(
  name: string,
  roles: string,
  services: ScenarioServices,
  extraEnv: Record<string, string> = {},
  nodeFlags: readonly string[] = [],
  root: string = ROOT,
): Promise<Server> {
  const port = await freePort();
  // The admin listener on a port of its own, as deployed (and as a baseline with METRICS_PORT
  // understands it): never the default 9090, which two processes of a scenario would share.
  const metricsPort = await freePort();
  const args = ['start', '--role', roles];
  const bin = `${root}bin/paymirror`;
  // bin/paymirror splits the variable on spaces: a flag holding one (a profile directory under a
  // path with spaces) goes to node directly, as for an older baseline.
  const splittable = nodeFlags.every((flag) => !/\s/.test(flag));
  const throughBin =
    nodeFlags.length === 0 || (splittable && readFileSync(bin, 'utf8').includes(NODE_FLAGS_VAR));
  const [command, commandArgs] = throughBin
    ? [bin, args]
    : [process.execPath, [...nodeFlags, '--enable-source-maps', cliEntry(root), ...args]];
  const child = spawnChild(name, command, commandArgs, {
    cwd: root,
    env: {
      ...paymirrorEnv(services, port),
      METRICS_PORT: String(metricsPort),
      ...(nodeFlags.length > 0 ? { [NODE_FLAGS_VAR]: nodeFlags.join(' ') } : {}),
      ...extraEnv,
    },
    echoStderr: true,
  });
  return ready(child, port, services.databaseUrl, metricsPort);
}

const NODE_FLAGS_VAR = 'PAYMIRROR_NODE_FLAGS';

/**
 * What bin/paymirror runs: dist/cli/main.js, or in a --baseline checkout built as a bundle,
 * that bundle (its launcher first).
 */
function cliEntry(root: string): string {
  const bundled = ['launch.mjs', 'paymirror.mjs'].map((file) => `${root}dist/cli/${file}`);
  return bundled.find((entry) => existsSync(entry)) ?? `${root}dist/cli/main.js`;
}

/** A TypeScript file under bench/ run with tsx (the bare and naive servers, bench wirings). */
export function spawnBenchScript(
  name: string,
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Child {
  return spawnChild(
    name,
    process.execPath,
    [...nodeFlags, '--import', 'tsx', `${ROOT}bench/${script}`, ...args],
    { cwd: ROOT, env, echoStderr: true },
  );
}

export async function startBenchServer(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<Server> {
  const port = await freePort();
  const child = spawnBenchScript(name, script, [], { ...env, PORT: String(port) }, nodeFlags);
  return ready(child, port, env.DATABASE_URL);
}
