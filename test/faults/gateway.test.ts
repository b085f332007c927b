import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { createGatewayClient } from '../../src/gateway/index.js';
import { createLogger } from '../../src/log/logger.js';
import { runReconcilePass } from '../../src/reconciler/reconcilePass.js';
import { webhookSaleBody } from '../support/fixtures.js';
import { startTestPaymirror, waitFor, type TestPaymirror } from '../support/paymirror.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import {
  createTestDatabase,
  createTestQueuePrefix,
  type TestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';
import { report, verdict } from './harness.js';

// The gateway answering 500, 429 with Retry-After, and not answering at all, during webhook
// confirmation and reconciliation: notifications wait and retry, the mirror is never corrupted.
let db: TestDatabase;
let queue: TestQueuePrefix;
let gateway: TestSandbox;
let proxy: Server;
let proxyUrl: string;
let app: TestPaymirror;
let call = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  queue = createTestQueuePrefix();
  gateway = await startTestSandbox();
  const target = new URL(gateway.url);
  // Deterministic faults: of every four calls, one 500, one 429, one hangs, one goes through.
  proxy = createServer((req, res) => {
    const kind = call++ % 4;
    if (kind === 0)
      return void res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"message":"boom","error":"internal"}');
    if (kind === 1) return void res.writeHead(429, { 'retry-after': '1' }).end();
    if (kind === 2) return; // never answers: the client's timeout must fire
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  app = await startTestPaymirror({
    db,
    queue,
    env: {
      ...gateway.env,
      GATEWAY_BASE_URL: proxyUrl,
      GATEWAY_TIMEOUT_MS: '300',
      GATEWAY_MAX_RPS: '200',
      JOB_ATTEMPTS: '20',
      RECONCILE_INTERVAL_SECONDS: '3600',
    },
  });
});
afterAll(async () => {
  await app?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await gateway?.close();
  await queue?.drop();
  await db?.drop();
});

describe('gateway faults', () => {
  it('500, 429 and time-outs during confirmation: every webhook is applied once, with the gateway values', async () => {
    const saleIds: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const id = await gateway.createSale({ amount: 1000 + i });
      await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
      saleIds.push(id);
    }
    const acknowledged: number[] = [];
    for (const id of saleIds) {
      const answer = await app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '999999' }));
      if (answer.status === 200) acknowledged.push(id);
    }
    await waitFor(async () => (await verdict(db, acknowledged)).lost === 0, {
      timeoutMs: 120_000,
      what: 'every webhook confirmed',
    });
    const result = await verdict(db, acknowledged);
    report('gateway-confirmation', result);
    expect(result).toMatchObject({ accepted: 20, lost: 0, duplicated: 0 });
    const amounts = await db.database.sql<
      { amount_cents: string }[]
    >`select amount_cents from sales where id = any(${saleIds})`;
    expect(amounts.every((row) => Number(row.amount_cents) < 2000)).toBe(true);
    expect(call).toBeGreaterThan(20);
  });

  it('500, 429 and time-outs during reconciliation: unread rows stay as they were; later passes correct them', async () => {
    const saleIds = (await db.database.sql<{ id: string }[]>`select id from sales order by id`).map(
      (r) => Number(r.id),
    );
    for (const id of saleIds) await gateway.control(`/sales/${id}/status`, { status: 'ESTORNADO' });
    const client = createGatewayClient({
      baseUrl: proxyUrl,
      publicKey: gateway.publicKey,
      privateKey: gateway.privateKey,
      timeoutMs: 300,
      retry: { attempts: 1 },
    });
    const deps = {
      sql: db.database.sql,
      gateway: client,
      policy: DEFAULT_WATCH_POLICY,
      logger: createLogger({ level: 'silent' }),
    };
    const first = await runReconcilePass(deps, { kind: 'all-open' }, 'fault-test');
    expect(first.status).not.toBe('succeeded');
    expect(first.errors).toBeGreaterThan(0);
    // A row is either untouched (PAGO) or corrected to the truth (ESTORNADO): never anything else.
    const statuses = await db.database.sql<
      { status: string }[]
    >`select distinct status from sales where id = any(${saleIds})`;
    expect(statuses.every((row) => ['PAGO', 'ESTORNADO'].includes(row.status))).toBe(true);
    let passes = 1;
    while (
      (
        await db.database
          .sql`select 1 from sales where id = any(${saleIds}) and status <> 'ESTORNADO'`
      ).length > 0
    ) {
      passes += 1;
      expect(passes).toBeLessThan(40);
      await runReconcilePass(deps, { kind: 'all-open' }, 'fault-test');
    }
    const history = await db.database.sql<{ n: number }[]>`
      select count(*)::int as n from status_history where resource_id = any(${saleIds}) and to_status = 'ESTORNADO'`;
    expect(history[0]?.n).toBe(saleIds.length);
    process.stdout.write(
      `fault gateway-reconciliation: ${saleIds.length} rows corrected over ${passes} passes, none corrupted\n`,
    );
  });
});
