import { BENCH_POSTBACK_SECRET } from '../lib/postbacks.js';
import { stopChild } from '../lib/processes.js';
import { resolve } from 'node:path';
import { startBenchServer, startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, type ScenarioServices } from '../lib/services.js';

/** A server under test with its own database and queue prefix. */
export interface RunningVariant {
  readonly name: string;
  readonly server: Server;
  /** Load connections, when not the plan's. */
  readonly connections?: number;
  stop(): Promise<void>;
}

export interface Variant {
  readonly name: string;
  readonly describe: string;
  /** Whether its database is migrated (paymirror) or left empty (naive), or none at all. */
  readonly database: 'migrated' | 'empty' | 'none';
  /** Load connections, when not the plan's (50). */
  readonly connections?: number;
  start(services: ScenarioServices | null): Promise<Server>;
}

export async function startVariant(variant: Variant): Promise<RunningVariant> {
  const services =
    variant.database === 'none'
      ? null
      : await createScenarioServices(variant.name, { migrate: variant.database === 'migrated' });
  try {
    const server = await variant.start(services);
    return {
      name: variant.name,
      server,
      ...(variant.connections ? { connections: variant.connections } : {}),
      async stop() {
        await stopChild(server.child);
        await services?.drop();
      },
    };
  } catch (error) {
    await services?.drop();
    throw error;
  }
}

export const bare: Variant = {
  name: 'bare',
  describe: 'node:http reading the body, answering 200',
  database: 'none',
  start: () => startBenchServer('bare', 'servers/bare.ts', {}),
};

export const naive: Variant = naiveAt('naive');

/** naive with `connections` load connections instead of the plan's. */
export function naiveAt(name: string, connections?: number): Variant {
  return {
    name,
    describe: 'Express 5 + express.json + HMAC + one INSERT per request',
    database: 'empty',
    ...(connections ? { connections } : {}),
    start: (services) =>
      startBenchServer(name, 'servers/naive.ts', {
        NODE_ENV: 'production',
        DATABASE_URL: services?.databaseUrl ?? '',
        POSTBACK_SECRET: BENCH_POSTBACK_SECRET,
      }),
  };
}

/** The real thing: `bin/paymirror start --role ingress`. */
export function paymirrorIngress(
  name = 'ingress',
  env: Record<string, string> = {},
  connections?: number,
): Variant {
  return {
    name,
    ...(connections ? { connections } : {}),
    describe: `bin/paymirror start --role ingress ${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`.trim(),
    database: 'migrated',
    start: (services) => startPaymirrorProcess(name, 'ingress', services as ScenarioServices, env),
  };
}

/** The same from a built checkout of another commit (`--baseline <dir>`): the "before". */
export function baselineIngress(dir: string): Variant {
  const root = `${resolve(dir)}/`;
  return {
    name: 'baseline',
    describe: `${root}bin/paymirror start --role ingress`,
    database: 'migrated',
    start: (services) =>
      startPaymirrorProcess('baseline', 'ingress', services as ScenarioServices, {}, [], root),
  };
}
