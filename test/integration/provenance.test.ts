import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import { createGatewayClient } from '../../src/gateway/index.js';
import { createLogger } from '../../src/log/logger.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { runReconcilePass } from '../../src/reconciler/reconcilePass.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';
import { waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// Who may assert what in the mirror (docs/reconciliation.md): signed postbacks,
// webhooks the gateway's GET confirmed, and gateway reads no older than the row.

/** What the proxy in front of the sandbox answers instead of it, while set. */
interface Broken {
  readonly status: number;
  readonly body: string;
  readonly type: string;
}

let gateway: TestSandbox;
let proxy: Server;
let proxyUrl = '';
let broken: Broken | null = null;
const brokenGets: string[] = [];

beforeAll(async () => {
  gateway = await startTestSandbox();
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (broken && request.method === 'GET') {
        brokenGets.push(request.url ?? '');
        response.writeHead(broken.status, { 'content-type': broken.type }).end(broken.body);
        return;
      }
      const body = Buffer.concat(chunks);
      void fetch(`${gateway.url}${request.url ?? ''}`, {
        method: request.method ?? 'GET',
        headers: request.headers as Record<string, string>,
        ...(body.length > 0 ? { body } : {}),
      }).then(async (answer) => {
        response
          .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' })
          .end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterEach(() => {
  broken = null;
  brokenGets.length = 0;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await gateway?.close();
});
const t = useTestApp({
  env: () => ({ ...gateway.env, GATEWAY_BASE_URL: proxyUrl, RECONCILE_INTERVAL_SECONDS: '3600' }),
});

const sql = () => t.db.database.sql;

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
      baseUrl: proxyUrl,
      publicKey: gateway.publicKey,
      privateKey: gateway.privateKey,
      retry: { attempts: 1 },
    }),
    policy: DEFAULT_WATCH_POLICY,
    logger: createLogger({ level: 'silent' }),
  };
}

async function indeterminateCount(): Promise<number> {
  const text = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
  return [...text.matchAll(/^paymirror_gateway_indeterminate_answers_total\{[^}]*\} (\d+)/gm)]
    .map((match) => Number(match[1]))
    .reduce((a, b) => a + b, 0);
}

describe('a GET answer that cannot tell (item 2)', () => {
  const cases: [string, Broken][] = [
    [
      '403 shape C FORBIDDEN',
      {
        status: 403,
        type: 'application/json',
        body: JSON.stringify({
          success: false,
          error: { code: 'FORBIDDEN', message: 'Account not permitted' },
        }),
      },
    ],
    [
      '401 shape C',
      {
        status: 401,
        type: 'application/json',
        body: JSON.stringify({
          success: false,
          error: { code: 'UNAUTHORIZED', message: 'Invalid credentials' },
        }),
      },
    ],
    [
      '404 as a proxy HTML page',
      { status: 404, type: 'text/html', body: '<html>Not Found</html>' },
    ],
  ];

  it.each(cases)(
    '%s: the webhook is retried, not forged, counted, and applied once the gateway answers',
    async (_name, answer) => {
      const id = await gateway.createSale({ amount: 4100 });
      await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
      const before = await indeterminateCount();
      broken = answer;
      const hook = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '4100' }));
      expect(hook.body.status).toBe('accepted');
      await waitFor(() => brokenGets.filter((url) => url.endsWith(`/${id}`)).length >= 2, {
        what: 'two refused GETs',
      });
      const [row] =
        await sql()`select state, attempts >= 1 as tried, last_error is not null as error
        from inbox_events where id = ${hook.body.id as number}`;
      expect(row).toMatchObject({ state: 'pending', error: true });
      expect(await indeterminateCount()).toBeGreaterThan(before);
      broken = null;
      expect(await finished(hook.body.id as number)).toEqual({
        state: 'processed',
        outcome: 'applied',
      });
    },
  );

  it('a reconciliation pass that meets one leaves the row scheduled and unmarked', async () => {
    const id = await gateway.createSale({ amount: 4200 });
    const post = await t.app.postback(postbackBody({ id, status: 'PENDENTE', amount: '4200' }));
    await finished(post.body.id as number);
    const [before] = await sql()`select next_reconcile_at from sales where id = ${id}`;
    broken = cases[0]![1];
    const summary = await runReconcilePass(reconcileDeps(), { kind: 'sale', id }, 'test');
    expect(summary).toMatchObject({ status: 'failed', errors: 1, notFound: 0 });
    const [after] = await sql()`select status, next_reconcile_at from sales where id = ${id}`;
    expect(after).toEqual({ status: 'PENDENTE', next_reconcile_at: before?.next_reconcile_at });
    expect(
      await sql()`select count(*)::int as n from reconciliation_discrepancies where resource_id = ${id}`,
    ).toEqual([{ n: 0 }]);
  });
});

describe('an unconfirmed webhook (item 4)', () => {
  it('writes none of its fields, records its claims, and does not steal the real event', async () => {
    const id = await gateway.createSale({ amount: 5100 });
    const post = await t.app.postback(postbackBody({ id, status: 'PENDENTE', amount: '5100' }));
    await finished(post.body.id as number);
    const forged = await t.app.webhook(
      webhookSaleBody({ id, status: 'PAGO', amount: '5100', fee: 999999 }),
    );
    expect(await finished(forged.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'unconfirmed',
    });
    const [sale] = await sql()`select status, fee_cents from sales where id = ${id}`;
    expect(sale?.status).toBe('PENDENTE');
    expect(sale?.fee_cents).not.toBe('999999');
    const claims = await sql()`
      select field, gateway_value from reconciliation_discrepancies
       where resource_id = ${id} and source = 'unconfirmed_webhook' order by field`;
    expect(claims).toEqual(
      expect.arrayContaining([
        { field: 'system_fee_cents', gateway_value: '999999' },
        { field: 'status', gateway_value: 'PAGO' },
      ]),
    );

    // The gateway's own webhook for the same event, later: not a duplicate, and applied.
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const real = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '5100' }));
    expect(real.body.status).toBe('accepted');
    expect(await finished(real.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    expect((await sql()`select status from sales where id = ${id}`)[0]?.status).toBe('PAGO');
  });

  it('a delivery that turned out forged releases its dedupe key', async () => {
    const body = webhookSaleBody({ id: 987_001, status: 'PAGO' });
    const first = await t.app.webhook(body);
    expect(await finished(first.body.id as number)).toMatchObject({ outcome: 'forged' });
    const again = await t.app.webhook(body);
    expect(again.body.status).toBe('accepted');
    expect(again.body.id).not.toBe(first.body.id);
  });
});

describe('withdrawal webhooks with gateway keys (item 6)', () => {
  it('store externalId and processedAt, which only the webhook carries, once confirmed', async () => {
    await gateway.control('/balance', { availableCents: 90_000 });
    const cashout = await gateway.api('POST', '/api/public/cashout', {
      amount: 150.5,
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
    });
    expect(cashout.status).toBe(201);
    const id = Number(cashout.body.id);
    await gateway.control(`/withdrawals/${id}/status`, { status: 'COMPLETED' });
    const hook = await t.app.webhook(
      withdrawalBody({
        id,
        status: 'COMPLETED',
        updatedAt: '2026-11-20T10:00:00.000Z',
        externalId: 'E18236120202611201000s0123456789',
        processedAt: '2026-11-20T10:00:00.000Z',
      }),
    );
    expect(await finished(hook.body.id as number)).toMatchObject({ state: 'processed' });
    const [row] =
      await sql()`select status, external_id, processed_at = '2026-11-20T10:00:00Z' as processed from withdrawals where id = ${id}`;
    expect(row).toEqual({
      status: 'COMPLETED',
      external_id: 'E18236120202611201000s0123456789',
      processed: true,
    });
  });
});

describe('reconciliation reports only what happened (item 8)', () => {
  it('shipping in another key order is no difference, pass after pass', async () => {
    const created = await gateway.api('POST', '/api/sales', {
      amount: 6100,
      paymentMethod: 'PIX',
      customer: { name: 'Maria da Silva', email: 'maria@example.com' },
      items: [{ title: 'Livro', unitPrice: 6100, quantity: 1, tangible: true }],
      shipping: {
        street: 'Rua Augusta',
        number: '1500',
        zipCode: '01304001',
        neighborhood: 'Consolação',
        city: 'São Paulo',
        state: 'SP',
      },
    });
    const id = (created.body.sale as { id: number }).id;
    const first = await runReconcilePass(reconcileDeps(), { kind: 'sale', id }, 'test');
    expect(first).toMatchObject({ checked: 1, inserted: 1, corrected: 0, unchanged: 0 });
    const second = await runReconcilePass(reconcileDeps(), { kind: 'sale', id }, 'test');
    expect(second).toMatchObject({ checked: 1, unchanged: 1, corrected: 0, discrepancies: 0 });
    expect(
      await sql()`select count(*)::int as n from reconciliation_discrepancies where resource_id = ${id}`,
    ).toEqual([{ n: 0 }]);
  });

  it('a sale on neither side is not a discrepancy', async () => {
    const summary = await runReconcilePass(reconcileDeps(), { kind: 'sale', id: 876_543 }, 'test');
    expect(summary).toMatchObject({ checked: 1, notFound: 1, discrepancies: 0 });
    expect(
      await sql()`select count(*)::int as n from reconciliation_discrepancies where resource_id = 876543`,
    ).toEqual([{ n: 0 }]);
  });

  it('centavos with a leading zero are the same amount across channels', async () => {
    const id = await gateway.createSale({ amount: 15000 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    // The webhook's "015000" is stored as received; the postback compared with it later.
    const hook = await t.app.webhook(webhookSaleBody({ id, status: 'PAGO', amount: '015000' }));
    expect(await finished(hook.body.id as number)).toEqual({
      state: 'processed',
      outcome: 'applied',
    });
    const post = await t.app.postback(postbackBody({ id, status: 'PAGO', amount: '15000' }));
    expect(await finished(post.body.id as number)).toEqual({ state: 'processed', outcome: 'noop' });
    expect(
      await sql()`select count(*)::int as n from reconciliation_discrepancies
                   where resource_id = ${id} and source = 'cross_channel'`,
    ).toEqual([{ n: 0 }]);
  });
});

describe('a gateway read against a newer signed state (item 3)', () => {
  const watch = () => ({ now: new Date(), policy: DEFAULT_WATCH_POLICY });

  it('a GET begun before a signed refund was applied does not undo it; nor does a later GET', async () => {
    const id = await gateway.createSale({ amount: 7100 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const client = reconcileDeps().gateway;
    const readAt = new Date();
    const paid = await client.getTransaction(id); // the truth as of readAt: PAGO
    await gateway.control(`/sales/${id}/status`, { status: 'ESTORNADO' });
    const refund = await t.app.postback(postbackBody({ id, status: 'ESTORNADO', amount: '7100' }));
    await finished(refund.body.id as number);

    const stale: MirrorInput = {
      kind: 'read',
      resource: 'sale',
      record: paid,
      readAt,
      context: { source: 'reconcile', inboxEventId: null },
      purpose: 'reconcile',
      runId: null,
    };
    const [result] = await writeMirror(t.db.database.sql, [stale], watch());
    expect(result).toMatchObject({ outcome: 'stale' });
    const path =
      await sql()`select to_status from status_history where resource_id = ${id} order by id`;
    expect(path.map((row) => row.to_status)).toEqual(['ESTORNADO']);
    expect((await sql()`select status from sales where id = ${id}`)[0]?.status).toBe('ESTORNADO');

    // Even a read begun after the refund never moves the sale out of a final status a signed
    // postback set: the difference is recorded and the sale read again.
    const fresh: MirrorInput = {
      ...stale,
      record: { ...paid, status: 'PAGO' },
      readAt: new Date(Date.now() + 1000),
    };
    const [held] = await writeMirror(t.db.database.sql, [fresh], watch());
    expect(held).toMatchObject({ outcome: 'held', flagged: false });
    expect((await sql()`select status from sales where id = ${id}`)[0]?.status).toBe('ESTORNADO');
  });
});

describe("another seller's signed postback (item 1)", () => {
  it('is refused 403 and kept with the rejections, never mirrored', async () => {
    const foreign = await t.app.postback(
      postbackBody({ id: 930_001, status: 'PAGO', userId: 777 }),
    );
    expect(foreign.status).toBe(403);
    expect(
      await sql()`select count(*)::int as n from inbox_events where resource_id = 930001`,
    ).toEqual([{ n: 0 }]);
    expect(await sql()`select count(*)::int as n from sales where id = 930001`).toEqual([{ n: 0 }]);
    await waitFor(
      async () =>
        (
          await sql()`select reason from rejected_deliveries
                       where channel = 'postback' and convert_from(raw_body, 'UTF8') like '%930001%'`
        )[0]?.reason === 'foreign_user',
      { what: 'the rejection kept' },
    );
  });

  it.each([
    ['missing', undefined],
    ['not a number', 'abc'],
    ['not an integer', 1.5],
    ['null', null],
  ])('a postback whose userId is %s is refused 400', async (_name, userId) => {
    const body = postbackBody({ id: 930_002, status: 'PAGO', userId });
    if (userId === undefined) delete body.userId;
    const answer = await t.app.postback(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/userId/);
    expect(
      await sql()`select count(*)::int as n from inbox_events where resource_id = 930002`,
    ).toEqual([{ n: 0 }]);
  });
});

describe('card-only statuses (item 9)', () => {
  it.each(['EM_PROCESSAMENTO', 'RECUSADO'])(
    '%s on a PIX sale is refused, not mirrored',
    async (status) => {
      const id = status === 'RECUSADO' ? 940_001 : 940_002;
      const post = await t.app.postback(postbackBody({ id, status, paymentMethod: 'PIX' }));
      expect(await finished(post.body.id as number)).toMatchObject({ outcome: 'invalid' });
      expect(await sql()`select count(*)::int as n from sales where id = ${id}`).toEqual([
        { n: 0 },
      ]);
    },
  );
});

describe('a webhook that repeats the true status with a fee the read does not confirm', () => {
  it('writes no fee, records the claim, and gives back its dedupe key', async () => {
    const id = await gateway.createSale({ amount: 5200 });
    await gateway.control(`/sales/${id}/status`, { status: 'PAGO' });
    const forged = await t.app.webhook(
      webhookSaleBody({ id, status: 'PAGO', amount: '5200', fee: 999999 }),
    );
    await finished(forged.body.id as number);
    const [sale] = await sql()`select fee_cents, system_fee_cents from sales where id = ${id}`;
    expect(sale?.fee_cents).toEqual(sale?.system_fee_cents);
    expect(String(sale?.fee_cents)).not.toBe('999999');
    const claims = await sql()`
      select field, gateway_value from reconciliation_discrepancies
       where resource_id = ${id} and source = 'unconfirmed_webhook'`;
    expect(claims).toEqual([{ field: 'system_fee_cents', gateway_value: '999999' }]);
    // The gateway's own webhook of the same event is processed, not answered duplicate.
    const real = await t.app.webhook(
      webhookSaleBody({ id, status: 'PAGO', amount: '5200', fee: Number(sale?.system_fee_cents) }),
    );
    expect(real.body.status).toBe('accepted');
  });
});
