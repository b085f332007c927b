import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { runCli } from '../support/cli.js';
import { startCountingProxy, type CountingProxy } from '../support/countingProxy.js';
import { POSTBACK_SECRET, WEBHOOK_TOKEN, webhookSaleBody } from '../support/fixtures.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// The gateway's base URL is checked before any answer is read as "not ours": a wrong base path
// answers every read with NestJS's 404, which is shape B (docs/reconciliation.md, "The
// gateway's base URL").
const test = useTestDatabase();
let sandbox: TestSandbox;
let proxy: CountingProxy;
let queue: TestQueuePrefix;

const PROBE_PATH = '/api/transactions/paymirror-base-url-check';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  proxy = await startCountingProxy(sandbox.url);
  queue = createTestQueuePrefix();
});
afterAll(async () => {
  await queue?.drop();
  await proxy?.close();
  await sandbox?.close();
});

const cliEnv = (gatewayBaseUrl: string) => ({
  ...sandbox.env,
  GATEWAY_BASE_URL: gatewayBaseUrl,
  DATABASE_URL: test().url,
  REDIS_URL: queue.redisUrl,
  QUEUE_PREFIX: queue.prefix,
  POSTBACK_SECRETS: POSTBACK_SECRET,
  WEBHOOK_TOKENS: WEBHOOK_TOKEN,
  PORT: '0',
  METRICS_PORT: '0',
  LOG_LEVEL: 'warn',
});

describe('a wrong base path', () => {
  it('start refuses with exit 2, naming GATEWAY_BASE_URL', async () => {
    const run = runCli(['start'], cliEnv(`${sandbox.url}/v1`));
    expect((await run.exited).code).toBe(2);
    expect(run.output()).toMatch(/GATEWAY_BASE_URL: .*404.*the base path is wrong/);
  });

  it('refuses in-process too, before serving anything', async () => {
    await expect(
      startTestPaymirror({
        db: test(),
        queue,
        roles: 'worker',
        env: { ...sandbox.env, GATEWAY_BASE_URL: `${sandbox.url}/v1` },
      }),
    ).rejects.toThrow(ConfigError);
  });

  it('doctor fails naming GATEWAY_BASE_URL, and does not take the 404 for accepted keys', async () => {
    const run = runCli(['doctor'], cliEnv(`${sandbox.url}/v1`));
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toMatch(/^gateway base URL\s+fail\s+GATEWAY_BASE_URL is wrong: .*404/m);
    expect(run.output()).toMatch(/^gateway\s+fail\s+not checked: GATEWAY_BASE_URL is wrong/m);
    const right = runCli(['doctor'], cliEnv(sandbox.url));
    await right.exited;
    expect(right.output()).toMatch(/^gateway base URL\s+ok/m);
  });
});

describe('a gateway that does not answer the check at start', () => {
  it('starts, says so on /readyz, and reads nothing as "not ours" until the check passes', async () => {
    proxy.hold(PROBE_PATH);
    const app = await startTestPaymirror({
      db: test(),
      queue,
      roles: 'ingress,worker',
      env: {
        ...sandbox.env,
        GATEWAY_BASE_URL: proxy.url,
        GATEWAY_TIMEOUT_MS: '500',
        GATEWAY_BASE_URL_RECHECK_SECONDS: '1',
        JOB_ATTEMPTS: '30',
      },
    });
    try {
      const ready = await fetch(`${app.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { gateway: string }).gateway).toMatch(/^unchecked: /);

      const unknownId = 880_001;
      const answer = await app.webhook(webhookSaleBody({ id: unknownId, status: 'PAGO' }));
      const rowId = answer.body.id as number;
      // The gateway says 404 (shape B) to every read of it; each is "cannot tell now".
      await waitFor(() => proxy.gets(`/api/transactions/${unknownId}`) >= 2, {
        what: 'the webhook read twice',
      });
      const [waiting] = await test().database.sql<{ state: string; outcome: string | null }[]>`
        select state, outcome from inbox_events where id = ${rowId}`;
      expect(waiting).toEqual({ state: 'pending', outcome: null });

      proxy.release(PROBE_PATH);
      await waitFor(
        async () => {
          const [row] = await test().database.sql<{ outcome: string | null }[]>`
            select outcome from inbox_events where id = ${rowId}`;
          return row?.outcome === 'forged';
        },
        { what: 'the webhook to end forged once the check passed', timeoutMs: 30_000 },
      );
      const after = (await (await fetch(`${app.url}/readyz`)).json()) as { gateway: string };
      expect(after.gateway).toBe('ok');
    } finally {
      await app.close();
    }
  });
});
