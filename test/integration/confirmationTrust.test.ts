import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackBody, webhookSaleBody } from '../support/fixtures.js';
import { startCountingProxy, type CountingProxy } from '../support/countingProxy.js';
import { inWaves, startTestPaymirror, waitFor, type TestPaymirror } from '../support/paymirror.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// Confirmations go by trust (docs/receiving.md, "Lanes"): webhooks about records the mirror
// knows are confirmed before any about an unknown id, and one gateway read answers every
// pending webhook of a record. The gateway is the sandbox, behind a proxy that counts its GETs.
const test = useTestDatabase();
let sandbox: TestSandbox;
let proxy: CountingProxy;
let queue: TestQueuePrefix;
let app: TestPaymirror;

const env = () => ({
  ...sandbox.env,
  GATEWAY_BASE_URL: proxy.url,
  GATEWAY_MAX_RPS: '5',
  GATEWAY_UNKNOWN_IDS_PERCENT: '20',
  RECONCILE_INTERVAL_SECONDS: '3600',
});

beforeAll(async () => {
  sandbox = await startTestSandbox();
  proxy = await startCountingProxy(sandbox.url);
  queue = createTestQueuePrefix();
  // No scheduler: its sweeper would enqueue the rows another test's ingress leaves pending.
  app = await startTestPaymirror({ db: test(), queue, roles: 'ingress,worker', env: env() });
});
afterAll(async () => {
  await app?.close();
  await queue?.drop();
  await proxy?.close();
  await sandbox?.close();
});

const sql = () => test().database.sql;
const transactionPath = (id: number) => `/api/transactions/${id}`;

interface Row {
  id: number;
  state: string;
  outcome: string | null;
  processedAt: Date | null;
}

async function rowsOf(ids: readonly number[]): Promise<Row[]> {
  return sql()<Row[]>`
    select id::int, state, outcome, processed_at as "processedAt" from inbox_events
     where id = any(${[...ids]}::int8[]) order by id`;
}

async function finished(ids: readonly number[]): Promise<Row[]> {
  return waitFor(
    async () => {
      const rows = await rowsOf(ids);
      return rows.length === ids.length && rows.every((row) => row.state !== 'pending')
        ? rows
        : undefined;
    },
    { what: `inbox rows ${ids.join(', ')} to finish` },
  );
}

/** A sale the gateway has at `status` and the mirror knows (from a signed postback). */
async function knownSale(status: string): Promise<number> {
  const id = await sandbox.createSale({ amount: 5000 });
  const posted = await app.postback(postbackBody({ id, status: 'PENDENTE' }));
  await finished([posted.body.id as number]);
  if (status !== 'PENDENTE') await sandbox.control(`/sales/${id}/status`, { status });
  return id;
}

describe('confirmation by trust', () => {
  it('a webhook about a known sale is confirmed while thousands of forged unknown-id webhooks still wait', async () => {
    const id = await knownSale('PAGO');
    const FORGED = 2000;
    const forged = await inWaves(FORGED, 50, (i) =>
      app.webhook(webhookSaleBody({ id: 91_000_000 + i, status: 'PAGO' })),
    );
    expect(forged.every((answer) => answer.body.status === 'accepted')).toBe(true);
    const forgedIds = forged.map((answer) => answer.body.id as number);

    const genuine = await app.webhook(webhookSaleBody({ id, status: 'PAGO' }));
    const [confirmed] = await finished([genuine.body.id as number]);
    expect(confirmed).toMatchObject({ state: 'processed', outcome: 'applied' });
    expect(proxy.gets(transactionPath(id))).toBe(1);

    // Received after all of them, confirmed before most of them.
    const [waiting] = await sql()<{ pending: number; forged: number }[]>`
      select count(*) filter (where state = 'pending')::int as pending,
             count(*) filter (where outcome = 'forged')::int as forged
        from inbox_events where id = any(${forgedIds}::int8[])`;
    expect(Math.max(...forgedIds)).toBeLessThan(genuine.body.id as number);
    expect(waiting?.pending).toBeGreaterThan(FORGED * 0.9);
    // They are being read, at their share of the budget: the first ones end forged.
    await waitFor(async () => {
      const [row] = await sql()<{ forged: number }[]>`
        select count(*)::int as forged from inbox_events
         where id = any(${forgedIds}::int8[]) and outcome = 'forged'`;
      return (row?.forged ?? 0) > 0 || undefined;
    });
    const [sale] = await sql()<{ status: string }[]>`select status from sales where id = ${id}`;
    expect(sale?.status).toBe('PAGO');
  });

  it('a webhook that arrives while its record is being read is answered by that read', async () => {
    const id = await knownSale('PAGO');
    const path = transactionPath(id);
    proxy.hold(path);
    try {
      const first = await app.webhook(webhookSaleBody({ id, status: 'EM_PROCESSAMENTO' }));
      await waitFor(() => proxy.gets(path) === 1 || undefined, { what: 'the first read' });
      const second = await app.webhook(webhookSaleBody({ id, status: 'PAGO' }));
      // Its job is taken (it waits on the read in flight) before the read is let go.
      await waitFor(
        async () => {
          const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
          return /^paymirror_queue_jobs\{queue="confirmations",state="active"\} 2$/m.test(text)
            ? true
            : undefined;
        },
        { what: 'both jobs taken' },
      );
      proxy.release(path);
      const rows = await finished([first.body.id as number, second.body.id as number]);
      // The read is applied with whichever of the two commits first: the other is a no-op.
      expect(rows[0]?.outcome).toBe('unconfirmed');
      expect(['applied', 'noop']).toContain(rows[1]?.outcome);
      expect(proxy.gets(path)).toBe(1);
    } finally {
      proxy.release(path);
    }
  });
});

describe('one read per record', () => {
  it('one GET answers every pending webhook of a record, in one transaction, wherever their jobs wait', async () => {
    const id = await knownSale('PAGO');
    const path = transactionPath(id);
    // Stored by an ingress alone: every webhook is pending before any worker looks.
    const separate = createTestQueuePrefix();
    const ingress = await startTestPaymirror({
      db: test(),
      queue: separate,
      roles: 'ingress',
      env: env(),
    });
    let worker: TestPaymirror | null = null;
    try {
      const statuses = ['EM_PROCESSAMENTO', 'PAGO', 'CANCELADO', 'FALHA', 'RECUSADO', 'MED'];
      const answers = await Promise.all(
        statuses.map((status) => ingress.webhook(webhookSaleBody({ id, status }))),
      );
      const ids = answers.map((answer) => answer.body.id as number);
      expect(new Set(answers.map((answer) => answer.body.status))).toEqual(new Set(['accepted']));
      // One job at a time, and the read held longer than any reuse of a recent read lasts.
      proxy.hold(path);
      worker = await startTestPaymirror({
        db: test(),
        queue: separate,
        roles: 'worker',
        env: { ...env(), CONFIRMATION_CONCURRENCY: '1' },
      });
      await waitFor(() => proxy.gets(path) === 1 || undefined, { what: 'the read' });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      proxy.release(path);
      const rows = await finished(ids);
      expect(proxy.gets(path)).toBe(1);
      expect(new Set(rows.map((row) => row.processedAt?.getTime())).size).toBe(1);
      const [sale] = await sql()<{ status: string }[]>`select status from sales where id = ${id}`;
      expect(sale?.status).toBe('PAGO');
      // The read is applied with the first row; the PAGO webhook agrees with it.
      expect(['applied', 'noop']).toContain(rows.find((row) => row.id === ids[1])?.outcome);
      expect(rows.filter((row) => row.outcome === 'unconfirmed')).toHaveLength(statuses.length - 1);
      // The other jobs found their rows finished: still one GET once the queue is empty.
      await waitFor(
        async () => {
          const text = await (await fetch(`${worker?.metricsUrl}/metrics`)).text();
          return /^paymirror_queue_jobs\{queue="confirmations",state="waiting"\} 0$/m.test(text) &&
            /^paymirror_queue_jobs\{queue="confirmations",state="active"\} 0$/m.test(text)
            ? true
            : undefined;
        },
        { what: 'the confirmation queue to drain' },
      );
      expect(proxy.gets(path)).toBe(1);
    } finally {
      proxy.release(path);
      await worker?.close();
      await ingress.close();
      await separate.drop();
    }
  });
});
