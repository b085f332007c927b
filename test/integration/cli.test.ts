import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  POSTBACK_SECRET,
  WEBHOOK_TOKEN,
  postbackBody,
  sign,
  webhookSaleBody,
} from '../support/fixtures.js';
import { runCli, type CliRun } from '../support/cli.js';
import { waitFor } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// bin/paymirror as a user runs it: configuration errors, migrate, start, logs, drain.
const test = useTestDatabase();
let queue: TestQueuePrefix;

beforeAll(async () => {
  queue = createTestQueuePrefix();
});
afterAll(async () => {
  await queue?.drop();
});

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
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

async function listeningUrl(run: CliRun): Promise<string> {
  const match = await run.waitForOutput(/"url":"(http:\/\/[^"]+)"/);
  return match[1] as string;
}

async function stop(run: CliRun) {
  run.child.kill('SIGTERM');
  return run.exited;
}

describe('configuration errors', () => {
  it('names every bad variable in one message and exits non-zero', async () => {
    const run = runCli(
      ['start'],
      baseEnv({ PORT: 'eighty', REDIS_URL: 'http://x', POSTBACK_SECRETS: 'short' }),
    );
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output()).toMatch(/PORT/);
    expect(run.output()).toMatch(/REDIS_URL/);
    expect(run.output()).toMatch(/POSTBACK_SECRETS/);
  });

  it('refuses to start in production without secrets', async () => {
    const run = runCli(['start'], baseEnv({ NODE_ENV: 'production' }));
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output()).toMatch(/POSTBACK_SECRETS: required when NODE_ENV=production/);
  });

  it('rejects an unknown role', async () => {
    const run = runCli(['start', '--role', 'chef'], baseEnv());
    expect((await run.exited).code).not.toBe(0);
    expect(run.output()).toMatch(/unknown role "chef"/);
  });
});

describe('migrate', () => {
  it('creates the database when it does not exist, then applies the migrations', async () => {
    const name = `pm_test_cli_${randomBytes(4).toString('hex')}`;
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    const run = runCli(['migrate'], { DATABASE_URL: url.toString() });
    expect((await run.exited).code).toBe(0);
    url.pathname = '/postgres';
    const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      url.pathname = `/${name}`;
      const created = postgres(url.toString(), { max: 1, onnotice: () => {} });
      const tables =
        await created`select table_name from information_schema.tables where table_schema = 'public' order by 1`;
      await created.end();
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining([
          'inbox_events',
          'sale_items',
          'sales',
          'status_history',
          'withdrawals',
        ]),
      );
    } finally {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });

  it('fails with a clear message when Postgres cannot be reached', async () => {
    const run = runCli(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/paymirror' });
    expect((await run.exited).code).not.toBe(0);
    expect(run.output()).toMatch(
      /paymirror: cannot reach Postgres at 127\.0\.0\.1:1 \(connection refused\)/,
    );
  });
});

describe('start', () => {
  it('in development without secrets, generates them, prints them with both URLs, warns, and serves', async () => {
    const run = runCli(
      ['start', '--role', 'ingress'],
      baseEnv({ PUBLIC_URL: 'https://shop.example.com' }),
    );
    try {
      const token = (await run.waitForOutput(/WEBHOOK_TOKENS=([A-Za-z0-9_-]+)/))[1] as string;
      const secret = (await run.waitForOutput(/POSTBACK_SECRETS=([A-Za-z0-9_-]+)/))[1] as string;
      expect(run.output()).toContain('https://shop.example.com/postbacks');
      expect(run.output()).toContain(`https://shop.example.com/webhooks/${token}`);
      expect(run.output()).toMatch(/DEVELOPMENT MODE/);
      const url = await listeningUrl(run);
      const raw = JSON.stringify(postbackBody({ id: 8001, status: 'PAGO' }));
      const answer = await fetch(`${url}/postbacks`, {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json', 'x-signature': sign(raw, secret) },
      });
      expect(answer.status).toBe(200);
    } finally {
      expect((await stop(run)).code).toBe(0);
    }
  });

  it('in development keeps what it made up in .paymirror/dev.env and reuses it after a restart', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'paymirror-cwd-'));
    const tokenOf = async () => {
      const run = runCli(['start', '--role', 'ingress'], baseEnv(), { cwd });
      try {
        const token = (await run.waitForOutput(/WEBHOOK_TOKENS=([A-Za-z0-9_-]+)/))[1] as string;
        await listeningUrl(run);
        expect(run.output()).toMatch(/\.paymirror\/dev\.env/);
        expect(run.output()).toMatch(/copy the lines of \.paymirror\/dev\.env into \.env/);
        return token;
      } finally {
        expect((await stop(run)).code).toBe(0);
      }
    };
    const first = await tokenOf();
    expect(readFileSync(join(cwd, '.paymirror', 'dev.env'), 'utf8')).toContain(
      `WEBHOOK_TOKENS=${first}`,
    );
    expect(await tokenOf()).toBe(first);
  }, 60_000);

  it.each([
    ['POSTBACK_SECRETS', POSTBACK_SECRET, 'WEBHOOK_TOKENS'],
    ['WEBHOOK_TOKENS', WEBHOOK_TOKEN, 'POSTBACK_SECRETS'],
  ])(
    'with only %s configured, the banner makes up the other and never prints the configured one',
    async (name, value, missing) => {
      const run = runCli(['start', '--role', 'ingress'], baseEnv({ [name]: value }));
      try {
        await run.waitForOutput(new RegExp(`${missing}=[A-Za-z0-9_-]{32}`));
        await listeningUrl(run);
        expect(run.output()).toContain(`${name}=(configured, not shown)`);
        expect(run.output()).not.toContain(value);
      } finally {
        expect((await stop(run)).code).toBe(0);
      }
    },
  );

  it('refuses an unknown NODE_ENV instead of running as development', async () => {
    const run = runCli(['start'], baseEnv({ NODE_ENV: 'prod' }));
    expect((await run.exited).code).not.toBe(0);
    expect(run.output()).toMatch(/NODE_ENV: must be development, test or production/);
  });

  it('refuses production without gateway keys unless UNCONFIRMED_WEBHOOKS=hold', async () => {
    const production = {
      NODE_ENV: 'production',
      POSTBACK_SECRETS: POSTBACK_SECRET,
      WEBHOOK_TOKENS: WEBHOOK_TOKEN,
      SELLER_USER_ID: '4242',
    };
    const refused = runCli(['start', '--role', 'ingress'], baseEnv(production));
    expect((await refused.exited).code).not.toBe(0);
    expect(refused.output()).toMatch(/GATEWAY_BASE_URL.*required when NODE_ENV=production/);
    const holding = runCli(
      ['start', '--role', 'ingress'],
      baseEnv({ ...production, UNCONFIRMED_WEBHOOKS: 'hold' }),
    );
    try {
      await listeningUrl(holding);
    } finally {
      expect((await stop(holding)).code).toBe(0);
    }
  });

  it('never writes a configured secret, key, signature or token to its output', async () => {
    const secrets = {
      POSTBACK_SECRETS: `${POSTBACK_SECRET},rotated-secret-${randomBytes(8).toString('hex')}`,
      WEBHOOK_TOKENS: WEBHOOK_TOKEN,
      GATEWAY_BASE_URL: 'http://127.0.0.1:1',
      GATEWAY_PUBLIC_KEY: `pk_live_${randomBytes(12).toString('hex')}`,
      GATEWAY_PRIVATE_KEY: `sk_live_${randomBytes(12).toString('hex')}`,
    };
    const run = runCli(
      ['start'],
      baseEnv({ ...secrets, SELLER_USER_ID: '4242', LOG_LEVEL: 'trace' }),
    );
    const signatures: string[] = [];
    try {
      const url = await listeningUrl(run);
      const raw = JSON.stringify(postbackBody({ id: 8101, status: 'PAGO' }));
      signatures.push(sign(raw));
      const send = (path: string, body: string, headers: Record<string, string> = {}) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
        });
      expect((await send('/postbacks', raw, { 'x-signature': sign(raw) })).status).toBe(200);
      expect(
        (await send('/postbacks', raw, { 'x-signature': sign(raw, 'wrong-secret-wrong') })).status,
      ).toBe(401);
      expect(
        (
          await send(
            `/webhooks/${WEBHOOK_TOKEN}`,
            JSON.stringify(webhookSaleBody({ id: 8101, status: 'PAGO', userId: 1 })),
          )
        ).status,
      ).toBe(403);
      expect(
        (
          await send(
            `/webhooks/${WEBHOOK_TOKEN}`,
            JSON.stringify(webhookSaleBody({ id: 8101, status: 'PAGO' })),
          )
        ).status,
      ).toBe(200);
      expect((await send(`/webhooks/${WEBHOOK_TOKEN}x`, '{}')).status).toBe(404);
      expect((await send(`/webhooks/${WEBHOOK_TOKEN}`, 'not json')).status).toBe(400);
      // The postback applies; the webhook's confirmation fails against the unreachable
      // gateway and is retried: both paths write logs, none may carry a secret.
      await waitFor(async () => {
        const rows = await test().database.sql`
          select channel, state, attempts from inbox_events where resource_id = 8101 order by channel`;
        return (
          rows[0]?.state === 'processed' && rows[1]?.channel === 'webhook' && rows[1].attempts >= 1
        );
      });
    } finally {
      expect((await stop(run)).code).toBe(0);
    }
    const output = run.output();
    expect(output).toMatch(/"route":"\/postbacks"[^\n]*"msg":"delivery rejected"/);
    for (const value of [...Object.values(secrets).flatMap((v) => v.split(',')), ...signatures]) {
      if (value.startsWith('http')) continue;
      expect(output).not.toContain(value);
    }
  });

  it('drains on SIGTERM: every acknowledged delivery is stored, and exits 0', async () => {
    const run = runCli(
      ['start'],
      baseEnv({ POSTBACK_SECRETS: POSTBACK_SECRET, WEBHOOK_TOKENS: WEBHOOK_TOKEN }),
    );
    const url = await listeningUrl(run);
    const bodies = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify(postbackBody({ id: 8200 + i, status: 'PAGO' })),
    );
    const answers = bodies.map((raw) =>
      fetch(`${url}/postbacks`, {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json', 'x-signature': sign(raw) },
      }).then(
        async (response) => ({
          status: response.status,
          body: (await response.json()) as { id?: number },
        }),
        () => ({ status: 0, body: {} as { id?: number } }),
      ),
    );
    await answers[0];
    run.child.kill('SIGTERM');
    const settled = await Promise.all(answers);
    expect((await run.exited).code).toBe(0);
    const acknowledged = settled.filter((a) => a.status === 200).map((a) => a.body.id as number);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(settled.every((a) => a.status === 200 || a.status === 0)).toBe(true);
    const stored = await test().database.sql<{ id: string; state: string }[]>`
      select id, state from inbox_events where id = any(${acknowledged})`;
    expect(stored).toHaveLength(acknowledged.length);

    // Whatever the drain left pending is applied by the next start: nothing acknowledged is lost.
    const again = runCli(
      ['start', '--role', 'worker,scheduler'],
      baseEnv({ SWEEP_AFTER_SECONDS: '0' }),
    );
    try {
      await listeningUrl(again);
      await waitFor(
        async () => {
          const rows = await test().database
            .sql`select count(*)::int as n from inbox_events where id = any(${acknowledged}) and state = 'processed'`;
          return rows[0]?.n === acknowledged.length;
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      expect((await stop(again)).code).toBe(0);
    }
  });
});

describe('what bin/paymirror runs', () => {
  it('serves the admin UI and its assets: the packages in it find their own files', async () => {
    const token = 'admin-token-0123456789abcdef';
    const run = runCli(
      ['start', '--role', 'ingress'],
      baseEnv({
        POSTBACK_SECRETS: POSTBACK_SECRET,
        WEBHOOK_TOKENS: WEBHOOK_TOKEN,
        ADMIN_TOKEN: token,
      }),
    );
    try {
      const url = (await run.waitForOutput(/"metricsUrl":"(http:\/\/[^"]+)"/))[1] as string;
      const headers = { authorization: `Bearer ${token}` };
      const page = await fetch(`${url}/admin/queues`, { headers });
      expect(page.status).toBe(200);
      const script = /src="(static\/js\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${url}/admin/queues/${script}`, { headers });
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(1000);
      // The console's files: its own (assets/console) and Chart.js from node_modules.
      for (const file of ['console.js', 'console.css', 'chart.umd.min.js']) {
        const served = await fetch(`${url}/console/assets/${file}`);
        expect(served.status, file).toBe(200);
        expect((await served.text()).length, file).toBeGreaterThan(500);
      }
      expect((await fetch(`${url}/console/deliveries`, { headers })).status).toBe(200);
      // msgpackr (BullMQ's) finds its native decoder from its own __dirname, or does without.
      if (process.platform === 'linux') {
        const maps = readFileSync(`/proc/${String(run.child.pid)}/maps`, 'utf8');
        expect(maps).toMatch(/msgpackr-extract/);
      }
    } finally {
      expect((await stop(run)).code).toBe(0);
    }
  });

  it('names src/ in the stack traces of its own code (node maps them, --enable-source-maps)', async () => {
    // A preload that prints the stack of process.exit's caller: paymirror's own exitOnError.
    const dir = mkdtempSync(join(tmpdir(), 'paymirror-stack-'));
    const preload = join(dir, 'exitStack.mjs');
    writeFileSync(
      preload,
      'const exit = process.exit;\n' +
        'process.exit = (code) => { process.stderr.write(`exit ${new Error("at exit").stack}\\n`); return exit(code); };\n',
    );
    try {
      const run = runCli(
        ['start', '--role', 'ingress'],
        baseEnv({ PORT: 'eighty', NODE_OPTIONS: `--import=${preload}` }),
      );
      expect((await run.exited).code).toBe(2);
      expect(run.output()).toMatch(/at exitOnError \(\/\S+\/src\/cli\/environment\.ts:\d+:\d+\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a service that cannot be reached', () => {
  const deadPostgres = 'postgres://postgres@127.0.0.1:1/paymirror';
  const deadRedis = 'redis://127.0.0.1:2';
  it.each([
    [['inbox', 'list'], { DATABASE_URL: deadPostgres }, 'Postgres at 127.0.0.1:1'],
    [['report', 'daily'], { DATABASE_URL: deadPostgres }, 'Postgres at 127.0.0.1:1'],
    [['inbox', 'replay', '--failed'], { REDIS_URL: deadRedis }, 'Redis at 127.0.0.1:2'],
  ])('%j fails within seconds naming the service and its address', async (args, dead, named) => {
    const run = runCli(args, baseEnv(dead));
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toContain(`paymirror: cannot reach ${named} (connection refused)`);
  });

  it('one Ctrl-C stops the demo: it cleans up and exits', async () => {
    const name = `pm_test_demo_${randomBytes(4).toString('hex')}`;
    const run = runCli(['demo', '--sales', '400'], {
      DEMO_DATABASE_URL: withDatabaseName(test().url, name),
      REDIS_URL: queue.redisUrl,
    });
    try {
      await run.waitForOutput(/sandbox gateway on http/);
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      expect(code).toBe(130);
      expect(run.output()).toMatch(/stopping and cleaning up/);
    } finally {
      run.child.kill('SIGKILL');
      const url = new URL(inject('databaseUrl'));
      url.pathname = '/postgres';
      const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });

  it('the demo fails within seconds naming Redis, and exits', async () => {
    const run = runCli(['demo'], {
      DEMO_DATABASE_URL: withDatabaseName(test().url, 'pm_demo_never_created'),
      REDIS_URL: 'redis://127.0.0.1:2',
    });
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toContain('cannot reach Redis at 127.0.0.1:2 (connection refused)');
  });
});

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

describe('a .env file', () => {
  it('is read from the working directory, and the real environment wins over it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paymirror-dotenv-'));
    writeFileSync(
      join(dir, '.env'),
      `# local settings\nDATABASE_URL=postgres://postgres@127.0.0.1:1/from-dotenv\nLOG_LEVEL=silent\n`,
    );
    try {
      const fromFile = runCli(['inbox', 'list'], { REDIS_URL: queue.redisUrl }, { cwd: dir });
      expect((await fromFile.exited).code).toBe(1);
      expect(fromFile.output()).toContain('cannot reach Postgres at 127.0.0.1:1');
      const overridden = runCli(['inbox', 'list'], { DATABASE_URL: test().url }, { cwd: dir });
      expect((await overridden.exited).code, overridden.output()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('only migrate and start change the schema', () => {
  async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
    const name = `pm_test_cli_${randomBytes(4).toString('hex')}`;
    const url = new URL(inject('databaseUrl'));
    url.pathname = '/postgres';
    const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      },
    };
  }

  it('report and inbox list on an unmigrated database say to migrate, and create nothing', async () => {
    const empty = await emptyDatabase();
    try {
      for (const args of [
        ['report', 'daily'],
        ['inbox', 'list'],
      ]) {
        const run = runCli(args, baseEnv({ DATABASE_URL: empty.url }));
        expect((await run.exited).code, args.join(' ')).toBe(1);
        expect(run.output()).toMatch(/no paymirror schema yet: run `paymirror migrate` first/);
      }
      const check = postgres(empty.url, { max: 1, onnotice: () => {} });
      const schemas = await check`select schema_name from information_schema.schemata
                                   where schema_name = 'drizzle'`;
      const tables = await check`select table_name from information_schema.tables
                                  where table_schema = 'public'`;
      await check.end();
      expect(schemas).toEqual([]);
      expect(tables).toEqual([]);
    } finally {
      await empty.drop();
    }
  });

  it('a database migrated by a newer paymirror is refused, not written to', async () => {
    await test().database.sql`insert into drizzle.__drizzle_migrations (hash, created_at)
                          values ('from-the-future', ${String(Date.UTC(2099, 0, 1))})`;
    try {
      const run = runCli(['report', 'daily'], baseEnv());
      expect((await run.exited).code).toBe(1);
      expect(run.output()).toMatch(/migrated by a newer paymirror/);
    } finally {
      await test().database
        .sql`delete from drizzle.__drizzle_migrations where hash = 'from-the-future'`;
    }
  });

  it('report reads REPORTS_DATABASE_URL (a replica) when it is set', async () => {
    const run = runCli(
      ['report', 'daily', '--format', 'json'],
      baseEnv({
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/primary-is-down',
        REPORTS_DATABASE_URL: test().url,
      }),
    );
    expect((await run.exited).code).toBe(0);
    expect(JSON.parse(run.stdout())).toEqual(expect.any(Array));
  });
});
