import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../src/gateway/index.js';
import { createSale } from '../../src/operations/createSale.js';
import { withPassLock } from '../../src/reconciler/passLock.js';
import { runReconcilePass } from '../../src/reconciler/reconcilePass.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { createLogger } from '../../src/log/logger.js';
import {
  WEBHOOK_TOKEN,
  postbackBody,
  webhookSaleBody,
  withdrawalBody,
} from '../support/fixtures.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/cli.js';
import { createTestQueuePrefix } from '../support/services.js';

// Notifications are hints; the gateway's GET is the truth, against the sandbox.
let gateway: TestSandbox;

beforeAll(async () => {
  gateway = await startTestSandbox();
});
afterAll(async () => {
  await gateway?.close();
});
const t = useTestApp({ env: () => ({ ...gateway.env, RECONCILE_INTERVAL_SECONDS: '3600' }) });

const sql = () => t.db.database.sql;
const silent = createLogger({ level: 'silent' });

async function finished(inboxId: number) {
  return waitFor(
    async () => {
      const rows = await sql()<{ state: string; outcome: string | null }[]>`
      select state, outcome from inbox_events where id = ${inboxId}`;
      return rows[0] && rows[0].state !== 'pending' ? rows[0] : undefined;
    },
    { what: `inbox row ${inboxId}` },
  );
}

function reconcileDeps() {
  return {
    sql: t.db.database.sql,
    gateway: createGatewayClient({
      baseUrl: gateway.url,
      publicKey: gateway.publicKey,
      privateKey: gateway.privateKey,
      retry: { attempts: 1 },
    }),
    policy: DEFAULT_WATCH_POLICY,
    logger: silent,
  };
}

describe('confirmation of unsigned webhooks', () => {
  it('a webhook claiming 999999 for a sale the gateway has at 5000 ends with 5000', async () => {
    const id = await gateway.createSale({ amount: 5000 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const answer = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '999999' }));
    expect(await finished(answer.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    const [sale] =
      await sql()`select status, amount_cents, net_amount_cents, fee_cents, gateway_read_at is not null as read from sales where id = ${id}`;
    const truth = await reconcileDeps().gateway.getTransaction(id);
    expect(sale).toMatchObject({
      status: 'PAGO',
      amount_cents: 5000,
      fee_cents: truth.systemFeeCents,
      read: true,
    });
    expect(Number(sale?.net_amount_cents)).toBeLessThan(5000);
    // The webhook's fee (150) is not what the gateway read says: kept as a discrepancy, not written.
    const fee =
      await sql()`select mirror_value, gateway_value, source from reconciliation_discrepancies where resource_id = ${id} and field = 'system_fee_cents'`;
    expect(fee).toEqual([
      {
        mirror_value: String(truth.systemFeeCents),
        gateway_value: '150',
        source: 'unconfirmed_webhook',
      },
    ]);
  });

  it('a webhook whose status the gateway does not confirm takes the gateway status', async () => {
    const id = await gateway.createSale({ amount: 7000 });
    const answer = await t.app.webhook(
      webhookSaleBody({ id, status: 'ESTORNADO', amount: '7000' }),
    );
    await finished(answer.body.id as number);
    const [sale] = await sql()`select status from sales where id = ${id}`;
    expect(sale?.status).toBe('PENDENTE');
  });

  it('a webhook for an id the gateway does not know (404) or that is not ours (403) changes nothing', async () => {
    const unknown = await t.app.webhook(webhookSaleBody({ id: 987654, status: 'PAGO' }));
    expect(await finished(unknown.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'forged',
    });
    const foreign = await gateway.control('/foreign-sales', { amount: 1000 });
    const foreignId = (foreign.body.id ??
      (foreign.body.sale as { id: number } | undefined)?.id) as number;
    expect(foreignId).toEqual(expect.any(Number));
    const forged = await t.app.webhook(webhookSaleBody({ id: foreignId, status: 'PAGO' }));
    expect(await finished(forged.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'forged',
    });
    const rows = await sql()`select id from sales where id in (987654, ${foreignId})`;
    expect(rows).toHaveLength(0);
    const metrics = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /paymirror_worker_outcomes_total\{resource="sale",outcome="forged"\} 2/,
    );
  });

  it('a withdrawal webhook is confirmed with GET cashout; the read form FAILED equals REJECTED', async () => {
    await gateway.control('/balance', { availableCents: 100_000 });
    const cashout = await gateway.api('POST', '/api/public/cashout', {
      amount: 150.5,
      pixKey: '12345678909',
    });
    const id = cashout.body.id as number;
    await gateway.control(`/withdrawals/${id}/status`, { status: 'PROCESSING' });
    await gateway.control(`/withdrawals/${id}/status`, { status: 'REJECTED' });
    const answer = await t.app.webhook(
      withdrawalBody({
        id,
        status: 'REJECTED',
        amount: '999.99',
        updatedAt: new Date().toISOString(),
      }),
    );
    expect(await finished(answer.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    const [row] =
      await sql()`select status, amount_cents, net_amount_cents, fee_total_cents from withdrawals where id = ${id}`;
    expect(row).toEqual({
      status: 'FAILED',
      amount_cents: 15050,
      net_amount_cents: 14775,
      fee_total_cents: 275,
    });
  });

  it('gateway down: the job retries and the notification is applied once it is back', async () => {
    const id = await gateway.createSale({ amount: 4200 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    await gateway.control('/faults', { internalError: 1 });
    const answer = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '4200' }));
    const inboxId = answer.body.id as number;
    await waitFor(
      async () => {
        const [row] =
          await sql()`select attempts, state, last_error from inbox_events where id = ${inboxId}`;
        return row && row.attempts >= 1 && row.state === 'pending' ? row : undefined;
      },
      { what: 'a failed attempt' },
    );
    await gateway.control('/faults', { internalError: 0 });
    expect(await finished(inboxId)).toEqual({ state: 'processed', outcome: 'applied' });
  });

  it('postback and webhook disagreeing on the amount are recorded as a cross-channel discrepancy', async () => {
    const id = await gateway.createSale({ amount: 5000 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const post = await t.app.postback(postbackBody({ id, status: 'PAGO', amount: '5000' }));
    await finished(post.body.id as number);
    const hook = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '6000' }));
    await finished(hook.body.id as number);
    const rows =
      await sql()`select field, mirror_value, gateway_value, source, action from reconciliation_discrepancies where resource_id = ${id} and source = 'cross_channel'`;
    expect(rows).toEqual([
      {
        field: 'amount_cents',
        mirror_value: '5000',
        gateway_value: '6000',
        source: 'cross_channel',
        action: 'recorded',
      },
    ]);
  });
});

describe('reconciliation', () => {
  it('finds a refund the mirror never heard of, corrects it, and records it', async () => {
    const id = await gateway.createSale({ amount: 8000 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const post = await t.app.postback(postbackBody({ id, status: 'PAGO', amount: '8000' }));
    await finished(post.body.id as number);
    await gateway.control(`/sales/${id}/status`, { status: 'ESTORNADO' });

    const summary = await runReconcilePass(reconcileDeps(), { kind: 'all-open' }, 'test');
    expect(summary.status).toBe('succeeded');
    expect(summary.corrected).toBeGreaterThanOrEqual(1);
    const [sale] =
      await sql()`select status, last_reconciled_at is not null as reconciled, next_reconcile_at from sales where id = ${id}`;
    expect(sale).toEqual({ status: 'ESTORNADO', reconciled: true, next_reconcile_at: null });
    const history =
      await sql()`select from_status, to_status, source from status_history where resource_id = ${id} and resource_type = 'sale' order by id`;
    expect(history.at(-1)).toEqual({
      from_status: 'PAGO',
      to_status: 'ESTORNADO',
      source: 'reconcile',
    });
    const discrepancies =
      await sql()`select field, mirror_value, gateway_value, action from reconciliation_discrepancies where run_id = ${summary.runId} and resource_id = ${id}`;
    expect(discrepancies).toContainEqual({
      field: 'status',
      mirror_value: 'PAGO',
      gateway_value: 'ESTORNADO',
      action: 'corrected',
    });
    const [run] =
      await sql()`select status, checked, corrected, finished_at is not null as finished from reconciliation_runs where id = ${summary.runId}`;
    expect(run).toMatchObject({ status: 'succeeded', finished: true });
  });

  it('gateway 500s during a pass: the pass is recorded failed and rows are untouched', async () => {
    const id = await gateway.createSale({ amount: 9100 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const post = await t.app.postback(postbackBody({ id, status: 'PAGO', amount: '9100' }));
    await finished(post.body.id as number);
    const [before] = await sql()`select * from sales where id = ${id}`;
    await gateway.control(`/sales/${id}/status`, { status: 'ESTORNADO' });
    await gateway.control('/faults', { internalError: 1 });
    try {
      const summary = await runReconcilePass(reconcileDeps(), { kind: 'sale', id }, 'test');
      expect(summary).toMatchObject({ status: 'failed', errors: 1, corrected: 0 });
      const [run] = await sql()`select status from reconciliation_runs where id = ${summary.runId}`;
      expect(run?.status).toBe('failed');
    } finally {
      await gateway.control('/faults', { internalError: 0 });
    }
    const [after] = await sql()`select * from sales where id = ${id}`;
    expect(after).toEqual(before);
  });

  it('two passes started at once: one runs, the other finds the lock taken', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = withPassLock(sql(), 0, async () => {
      await held;
      return 'first';
    });
    await waitFor(async () => {
      const rows = await sql()`select 1 from scheduler_leases where name = 'reconcile'`;
      return rows.length > 0;
    });
    const second = await withPassLock(sql(), 0, async () => 'second');
    release();
    expect(second).toBeNull();
    expect(await first).toBe('first');
    expect(await sql()`select count(*)::int as n from scheduler_leases`).toEqual([{ n: 0 }]);
  });

  it('a lease its holder stopped renewing (a killed process) is taken over once expired', async () => {
    await sql()`insert into scheduler_leases (name, holder, expires_at)
                values ('reconcile', 'killed-process', now() - interval '1 second')`;
    expect(await withPassLock(sql(), 0, async () => 'taken over')).toBe('taken over');
  });

  it('an ambiguous postback (PAGO then MED) is read first: the dispute stays in history, the sale at the truth', async () => {
    const id = await gateway.createSale({ amount: 3000 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    await t.app
      .postback(postbackBody({ id, status: 'PAGO', amount: '3000' }))
      .then((a) => finished(a.body.id as number));
    // MED → PAGO is a move a signed postback alone cannot prove is the latest: the worker reads first.
    // The gateway already says PAGO again (the dispute was won), so the signed MED is history.
    const med = await t.app.postback(postbackBody({ id, status: 'MED', amount: '3000' }));
    expect(await finished(med.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    const [sale] = await sql()`select status from sales where id = ${id}`;
    expect(sale?.status).toBe('PAGO');
    const path =
      await sql()`select from_status, to_status, entered from status_history where resource_id = ${id} and resource_type = 'sale' order by id`;
    expect(path).toEqual([
      { from_status: null, to_status: 'PAGO', entered: true },
      { from_status: 'PAGO', to_status: 'MED', entered: true },
      { from_status: 'MED', to_status: 'PAGO', entered: true },
    ]);
    // The same MED delivered again is the same observation: no second history row.
    const replay = await t.app.postback(postbackBody({ id, status: 'MED', amount: '3000' }));
    expect(await finished(replay.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'noop',
    });
    expect(
      await sql()`select count(*)::int as n from status_history where resource_id = ${id} and resource_type = 'sale'`,
    ).toEqual([{ n: 3 }]);
  });
});

describe('scheduling', () => {
  it('a due pass takes the rows the worker marked before the rows merely due', async () => {
    const marked = await gateway.createSale({ amount: 1100 });
    const due = await gateway.createSale({ amount: 1200 });
    for (const id of [marked, due]) {
      await t.app
        .postback(
          postbackBody({ id, status: 'PENDENTE', amount: String(id === marked ? 1100 : 1200) }),
        )
        .then((a) => finished(a.body.id as number));
    }
    await sql()`update sales set next_reconcile_at = now() - interval '1 hour', reconcile_requested_at = null`;
    await sql()`update sales set reconcile_requested_at = now(), next_reconcile_at = now() + interval '1 day' where id = ${marked}`;
    const summary = await runReconcilePass(reconcileDeps(), { kind: 'due', limit: 1 }, 'test');
    expect(summary.checked).toBe(1);
    const [row] =
      await sql()`select reconcile_requested_at, last_reconciled_at is not null as reconciled, next_reconcile_at > now() as rescheduled from sales where id = ${marked}`;
    expect(row).toEqual({ reconcile_requested_at: null, reconciled: true, rescheduled: true });
    const [other] = await sql()`select last_reconciled_at from sales where id = ${due}`;
    expect(other?.last_reconciled_at).toBeNull();
  });
});

describe('CLI', () => {
  const env = () => ({ DATABASE_URL: t.db.url, ...gateway.env, LOG_LEVEL: 'warn' });

  it('reconcile --all-open prints a summary and exits 0; with the gateway failing, exits non-zero', async () => {
    const ok = runCli(['reconcile', '--all-open'], env());
    expect((await ok.exited).code).toBe(0);
    expect(ok.output()).toMatch(/status\s+succeeded/);
    expect(ok.output()).toMatch(/checked\s+[0-9]+/);
    expect(ok.output()).toMatch(/corrected\s+[0-9]+/);
    await gateway.control('/faults', { internalError: 1 });
    try {
      const failing = runCli(['reconcile', '--all-open'], { ...env(), LOG_LEVEL: 'silent' });
      expect((await failing.exited).code).not.toBe(0);
      expect(failing.output()).toMatch(/status\s+(failed|partial)/);
    } finally {
      await gateway.control('/faults', { internalError: 0 });
    }
  });

  it('reconcile sale <id> and sale get <id> answer for one sale', async () => {
    const id = await gateway.createSale({ amount: 2500 });
    const one = runCli(['reconcile', 'sale', String(id)], env());
    expect((await one.exited).code).toBe(0);
    expect(one.output()).toMatch(/checked\s+1/);
    const get = runCli(['sale', 'get', String(id)], env());
    expect((await get.exited).code).toBe(0);
    expect(JSON.parse(get.output())).toMatchObject({ id, amountCents: 2500, status: 'PENDENTE' });
    const missing = runCli(['sale', 'get', '999999'], env());
    expect((await missing.exited).code).not.toBe(0);
    expect(JSON.parse(missing.output())).toMatchObject({
      error: 'GatewayError',
      status: 404,
      shape: 'B',
    });
  });

  it('backfill sales mirrors ours, skips 404/403, and resumes where it stopped', async () => {
    const first = await gateway.createSale({ amount: 3300 });
    await gateway.control('/foreign-sales', { amount: 100 });
    const last = await gateway.createSale({ amount: 3400 });
    const run = runCli(
      ['backfill', 'sales', '--from-id', String(first), '--to-id', String(last + 2)],
      env(),
    );
    expect((await run.exited).code).toBe(0);
    expect(run.output()).toMatch(/2 mirrored, 3 skipped/);
    const rows =
      await sql()`select id, amount_cents from sales where id in (${first}, ${last}) order by id`;
    expect(rows).toEqual([
      { id: first, amount_cents: 3300 },
      { id: last, amount_cents: 3400 },
    ]);
    const again = runCli(
      ['backfill', 'sales', '--from-id', String(first), '--to-id', String(last + 2)],
      env(),
    );
    expect((await again.exited).code).toBe(0);
    expect(again.output()).toMatch(/already finished by an earlier run \(2 mirrored, 3 skipped/);
    expect(again.output()).toMatch(/nothing probed now/);
  });

  it('cashout sends the amount once and writes the withdrawal to the mirror at once', async () => {
    await gateway.control('/balance', { availableCents: 50_000 });
    const run = runCli(
      [
        'cashout',
        '--amount',
        '150.50',
        '--pix-key',
        'maria@example.com',
        '--pix-key-type',
        'EMAIL',
      ],
      env(),
    );
    expect((await run.exited).code).toBe(0);
    const answer = JSON.parse(run.output()) as { id: number; amountCents: number };
    expect(answer.amountCents).toBe(15050);
    const [row] = await sql()`select status, amount_cents from withdrawals where id = ${answer.id}`;
    expect(row).toEqual({ status: 'PENDING', amount_cents: 15050 });
    const refused = runCli(
      ['cashout', '--amount', '99.99', '--pix-key', 'maria@example.com'],
      env(),
    );
    expect((await refused.exited).code).not.toBe(0);
    expect(JSON.parse(refused.output())).toMatchObject({
      status: 422,
      shape: 'A',
      errorType: 'MINIMUM_VALUE',
    });
  });
});

describe('end to end with the sandbox', () => {
  it('a sale created with postbackUrl is mirrored at once, then its signed postback and confirmed webhook apply', async () => {
    await gateway.control('/config', { webhookUrl: `${t.app.url}/webhooks/${WEBHOOK_TOKEN}` });
    try {
      const deps = reconcileDeps();
      const sale = await createSale(
        { sql: deps.sql, gateway: deps.gateway, policy: deps.policy },
        {
          amountCents: 15050,
          paymentMethod: 'PIX',
          customer: { name: 'Maria da Silva', email: 'maria@example.com' },
          items: [{ title: 'Curso', unitPriceCents: 15050, quantity: 1, tangible: false }],
          postbackUrl: `${t.app.url}/postbacks`,
        },
      );
      const [created] =
        await sql()`select status, amount_cents, pix_code is not null as has_pix from sales where id = ${sale.id}`;
      expect(created).toEqual({ status: 'PENDENTE', amount_cents: 15050, has_pix: true });
      await gateway.control(`/sales/${sale.id}/status`, { status: 'PAGO' });
      await gateway.sandbox.idle();
      const channels = await waitFor(async () => {
        const rows = await sql()<{ channel: string }[]>`
          select channel from inbox_events where resource_id = ${sale.id} and state = 'processed' order by channel`;
        return rows.length === 2 ? rows.map((r) => r.channel) : undefined;
      });
      expect(channels).toEqual(['postback', 'webhook']);
      const [paid] =
        await sql()`select status, fee_cents is not null as has_fee, external_transaction_id is not null as has_ext from sales where id = ${sale.id}`;
      expect(paid).toEqual({ status: 'PAGO', has_fee: true, has_ext: true });
      const history =
        await sql()`select from_status, to_status, source from status_history where resource_type = 'sale' and resource_id = ${sale.id} order by id`;
      expect(history[0]).toEqual({ from_status: null, to_status: 'PENDENTE', source: 'api' });
      expect(history[1]).toMatchObject({ from_status: 'PENDENTE', to_status: 'PAGO' });
      expect(history).toHaveLength(2);
    } finally {
      await gateway.control('/config', { webhookUrl: null });
    }
  });

  it('the scheduler role runs reconciliation passes by itself', async () => {
    const id = await gateway.createSale({ amount: 6100 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    await t.app
      .postback(postbackBody({ id, status: 'PAGO', amount: '6100' }))
      .then((a) => finished(a.body.id as number));
    await gateway.control(`/sales/${id}/status`, { status: 'ESTORNADO' });
    await sql()`update sales set reconcile_requested_at = now() where id = ${id}`;
    const isolated = createTestQueuePrefix();
    const scheduler = await startTestPaymirror({
      db: t.db,
      queue: isolated,
      roles: 'scheduler',
      env: { ...gateway.env, RECONCILE_INTERVAL_SECONDS: '10' },
    });
    try {
      const [sale] = await waitFor(
        async () => {
          const rows =
            await sql()`select status from sales where id = ${id} and status = 'ESTORNADO'`;
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 30_000, what: 'a scheduled pass' },
      );
      expect(sale?.status).toBe('ESTORNADO');
      const runs = await sql()`select status from reconciliation_runs where trigger = 'scheduled'`;
      expect(runs.length).toBeGreaterThan(0);
    } finally {
      await scheduler.close();
      await isolated.drop();
    }
  });
});
