import { mkdtempSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// `start` as a newcomer meets it: each known failure is one line with the right hint, no stack
// trace, and a signal ends any phase.
const test = useTestDatabase();
let queue: TestQueuePrefix;
const servers: Server[] = [];
const sockets: Socket[] = [];

beforeAll(() => {
  queue = createTestQueuePrefix();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await queue?.drop();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: test().url,
    REDIS_URL: queue.redisUrl,
    QUEUE_PREFIX: queue.prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    SPOOL_DIR: mkdtempSync(join(tmpdir(), 'paymirror-spool-')),
    ...extra,
  };
}

const cwd = mkdtempSync(join(tmpdir(), 'paymirror-cwd-'));
const start = (extra: Record<string, string> = {}) =>
  runCli(['start', '--role', 'ingress'], env(extra), { cwd });

/** A loopback listener of the test's own; `onConnection` decides what a client meets. */
async function listenOnLoopback(onConnection: (socket: Socket) => void = () => {}) {
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A loopback port nothing listens on: bound once, then released. */
async function unusedPort(): Promise<number> {
  const { server, port } = await listenOnLoopback();
  await new Promise((resolve) => server.close(resolve));
  servers.splice(servers.indexOf(server), 1);
  return port;
}

function expectNoStackTrace(run: CliRun) {
  expect(run.output()).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  expect(run.output()).not.toMatch(/"stack"|unexpected error/);
}

describe('start, when something is wrong around it', () => {
  it('a port in use: one line naming PORT, exit 1', async () => {
    const { port } = await listenOnLoopback();
    const run = start({ PORT: String(port) });
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toMatch(
      new RegExp(
        `paymirror: cannot listen on PORT \\(127\\.0\\.0\\.1:${port}\\): the port is in use`,
      ),
    );
    expectNoStackTrace(run);
  });

  it('Redis down: one line per try naming REDIS_URL, with backoff, until Redis comes', async () => {
    const port = await unusedPort();
    const run = start({ REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      await run.waitForOutput(/REDIS_URL[^\n]*trying again in 1 s/);
      await run.waitForOutput(/REDIS_URL[^\n]*trying again in 2 s/);
      // Redis comes: a relay to the real one on the port paymirror tries.
      const redis = new URL(queue.redisUrl);
      const relay = createServer((client) => {
        const upstream = createConnection(Number(redis.port || 6379), redis.hostname);
        sockets.push(client, upstream);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      servers.push(relay);
      await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
      await run.waitForOutput(/"msg":"paymirror started"/, 60_000);
      const tries = run
        .output()
        .match(/cannot reach Redis at 127\.0\.0\.1:\d+ \(connection refused\)[^\n]*REDIS_URL/g);
      expect(tries?.length).toBeGreaterThanOrEqual(2);
      expectNoStackTrace(run);
    } finally {
      run.child.kill('SIGTERM');
      expect((await run.exited).code).toBe(0);
    }
  });

  it('Redis down: SIGTERM while waiting for it ends start-up cleanly', async () => {
    const run = start({ REDIS_URL: `redis://127.0.0.1:${await unusedPort()}` });
    await run.waitForOutput(/trying again in 1 s/);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(run.output()).toMatch(/stopped by SIGTERM during start-up/);
    expectNoStackTrace(run);
  });

  it('wrong Postgres credentials: authentication failed for that user, not "is it running?"', async () => {
    const url = new URL(test().url);
    url.username = 'paymirror_no_such_user';
    const run = start({ DATABASE_URL: url.toString() });
    expect((await run.exited).code).toBe(2);
    expect(run.output()).toMatch(
      /paymirror: Postgres at [^\n]+ refused the connection: authentication failed for user "paymirror_no_such_user"[^\n]*DATABASE_URL/,
    );
    expect(run.output()).not.toMatch(/is it running/);
    expectNoStackTrace(run);
  });

  it('a Postgres that never answers: a connect timeout, one line, exit 1', async () => {
    const { port } = await listenOnLoopback();
    const run = start({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/paymirror` });
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toMatch(
      new RegExp(`cannot reach Postgres at 127\\.0\\.0\\.1:${port} \\(no answer in time\\)`),
    );
    expectNoStackTrace(run);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'a Postgres that never answers: %s stops start-up',
    async (signal) => {
      const { port } = await listenOnLoopback();
      const run = start({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/paymirror` });
      await run.waitForOutput(/SELLER_USER_ID is not set/);
      run.child.kill(signal);
      expect((await run.exited).code).toBe(0);
      expect(run.output()).toMatch(new RegExp(`stopped by ${signal} during start-up`));
    },
  );
});
