import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  POSTBACK_SECRET,
  SELLER_USER_ID,
  WEBHOOK_TOKEN,
  postbackBody,
  sign,
  webhookSaleBody,
  withdrawalBody,
} from '../support/fixtures.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { freePort } from '../support/pgbouncer.js';
import { startRedisServer, stopProcess, waitForPing } from '../support/redisTopology.js';
import { useTestApp } from '../support/testApp.js';

// Every row of the README's "HTTP answers" table, and the order of checks, through HTTP.
// Ingress only: these tests look at answers and inbox rows, not at the worker.
const t = useTestApp({
  roles: 'ingress',
  env: () => ({ BODY_LIMIT_BYTES: '2048', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128' }),
});

const inboxCount = async () =>
  Number((await t.db.database.sql`select count(*)::int as n from inbox_events`)[0]?.n);

describe('postbacks', () => {
  it('accepts a signed postback and stores it before answering', async () => {
    const answer = await t.app.postback(postbackBody({ id: 1001, status: 'PAGO' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'accepted', id: expect.any(Number) });
    const rows = await t.db.database
      .sql`select channel, state, event_key, resource_type, resource_id from inbox_events where id = ${answer.body.id as number}`;
    expect(rows[0]).toEqual({
      channel: 'postback',
      state: 'pending',
      event_key: 'sale:1001:PAGO',
      resource_type: 'sale',
      resource_id: 1001,
    });
  });

  it('answers duplicate with the id of the first delivery', async () => {
    const body = postbackBody({ id: 1002, status: 'PAGO' });
    const first = await t.app.postback(body);
    const second = await t.app.postback(body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ status: 'duplicate', id: first.body.id });
    const rows = await t.db.database
      .sql`select delivery_count from inbox_events where id = ${first.body.id as number}`;
    expect(rows[0]?.delivery_count).toBe(2);
  });

  it('quarantines an authenticated body it cannot understand', async () => {
    for (const body of [
      postbackBody({ id: 1003, status: 'PAGAMENTO_ESTRANHO' }),
      { ...postbackBody({ id: 1004, status: 'PAGO' }), id: undefined },
      postbackBody({ id: 1005, status: 'PAGO', amount: '150.50' }),
      postbackBody({ id: 1006, status: 'PAGO', amount: '-1' }),
    ]) {
      const answer = await t.app.postback(body);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: 'quarantined', id: expect.any(Number) });
      const rows = await t.db.database
        .sql`select state, quarantine_reason from inbox_events where id = ${answer.body.id as number}`;
      expect(rows[0]?.state).toBe('quarantined');
      expect(rows[0]?.quarantine_reason).toEqual(expect.any(String));
    }
  });

  it('400 for a body that is not JSON or not an object', async () => {
    for (const raw of ['{not json', '[1,2]', '"text"', 'null']) {
      const answer = await t.app.postback(null, { raw });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual(expect.any(String));
    }
  });

  it('401 for a missing, wrong or foreign-secret signature', async () => {
    const body = postbackBody({ id: 1007, status: 'PAGO' });
    const raw = JSON.stringify(body);
    expect((await t.app.postback(body, { signature: null })).status).toBe(401);
    expect((await t.app.postback(body, { signature: 'abc' })).status).toBe(401);
    expect(
      (await t.app.postback(body, { signature: sign(raw, 'another-secret-entirely') })).status,
    ).toBe(401);
    expect((await t.app.postback(body, { signature: sign(raw + ' ') })).status).toBe(401);
  });

  it('415 for a Content-Type that is not JSON, before anything else', async () => {
    const answer = await t.app.postback(postbackBody({ id: 1008, status: 'PAGO' }), {
      contentType: 'text/plain',
      signature: null,
    });
    expect(answer.status).toBe(415);
  });

  it('413 for a body over the limit, before the signature is checked', async () => {
    const big = postbackBody({ id: 1009, status: 'PAGO', customerName: 'x'.repeat(4000) });
    expect((await t.app.postback(big, { signature: 'bad' })).status).toBe(413);
  });

  it('401 comes before 400: an unsigned non-JSON body is 401', async () => {
    expect((await t.app.postback(null, { raw: 'not json', signature: null })).status).toBe(401);
  });

  it('a signed non-JSON body is 400 (401 passed)', async () => {
    expect((await t.app.postback(null, { raw: 'not json' })).status).toBe(400);
  });
});

describe('webhooks', () => {
  it('accepts a transaction webhook and a withdrawal webhook', async () => {
    const sale = await t.app.webhook(webhookSaleBody({ id: 2001, status: 'PAGO' }));
    expect(sale.body).toEqual({ status: 'accepted', id: expect.any(Number) });
    const withdrawal = await t.app.webhook(
      withdrawalBody({ id: 9001, status: 'PROCESSING', updatedAt: '2026-11-20T10:00:00.000Z' }),
    );
    expect(withdrawal.body).toEqual({ status: 'accepted', id: expect.any(Number) });
    const rows = await t.db.database
      .sql`select event_key from inbox_events where id = ${withdrawal.body.id as number}`;
    expect(rows[0]?.event_key).toBe('withdrawal:9001:PROCESSING:2026-11-20T10:00:00.000Z');
  });

  it('normalises updatedAt in the event key, so the same instant in another notation is a duplicate', async () => {
    const first = await t.app.webhook(
      withdrawalBody({ id: 9002, status: 'COMPLETED', updatedAt: '2026-11-20T10:00:00Z' }),
    );
    const second = await t.app.webhook(
      withdrawalBody({ id: 9002, status: 'COMPLETED', updatedAt: '2026-11-20T07:00:00.000-03:00' }),
    );
    expect(first.body.status).toBe('accepted');
    expect(second.body).toEqual({ status: 'duplicate', id: first.body.id });
  });

  it('404 for an unknown token, the same answer as an unknown path', async () => {
    const unknownToken = await t.app.webhook(webhookSaleBody({ id: 2002, status: 'PAGO' }), {
      token: 'not-the-token-at-all-0000',
    });
    const unknownPath = await t.app.post('/no/such/path', '{}', {
      'content-type': 'application/json',
    });
    expect(unknownToken.status).toBe(404);
    expect(unknownPath.status).toBe(404);
    expect(unknownToken.body).toEqual(unknownPath.body);
  });

  it('404 (token) comes before 415 and 413', async () => {
    const answer = await t.app.webhook(null, {
      token: 'wrong-token-wrong-token',
      contentType: 'text/plain',
      raw: 'x'.repeat(5000),
    });
    expect(answer.status).toBe(404);
  });

  it('403 for a foreign userId (compared as an integer) or a wrong type', async () => {
    expect(
      (await t.app.webhook(webhookSaleBody({ id: 2003, status: 'PAGO', userId: 1 }))).status,
    ).toBe(403);
    expect(
      (
        await t.app.webhook(
          webhookSaleBody({ id: 2004, status: 'PAGO', userId: `${SELLER_USER_ID}.5` }),
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await t.app.webhook(
          webhookSaleBody({ id: 2005, status: 'PAGO', userId: String(SELLER_USER_ID) }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await t.app.webhook(webhookSaleBody({ id: 2006, status: 'PAGO', type: 'REFUND' }))).status,
    ).toBe(403);
    expect(
      (await t.app.webhook(webhookSaleBody({ id: 2007, status: 'PAGO', type: undefined }))).status,
    ).toBe(403);
  });

  it('415 → 413 → 400 → 403 in that order', async () => {
    const foreign = webhookSaleBody({ id: 2008, status: 'PAGO', userId: 1 });
    expect((await t.app.webhook(foreign, { contentType: 'text/xml' })).status).toBe(415);
    expect(
      (await t.app.webhook(null, { raw: JSON.stringify({ ...foreign, pad: 'x'.repeat(4000) }) }))
        .status,
    ).toBe(413);
    expect((await t.app.webhook(null, { raw: '[]' })).status).toBe(400);
    expect((await t.app.webhook(foreign)).status).toBe(403);
  });

  it('quarantines an authentic webhook with an unknown status', async () => {
    const answer = await t.app.webhook(webhookSaleBody({ id: 2009, status: 'WHATEVER' }));
    expect(answer.body).toEqual({ status: 'quarantined', id: expect.any(Number) });
  });

  it('accepts an impossible move (MED on a card sale): the worker decides', async () => {
    const answer = await t.app.webhook(
      webhookSaleBody({ id: 2010, status: 'MED', paymentMethod: 'CREDIT_CARD' }),
    );
    expect(answer.body.status).toBe('accepted');
  });

  it('a rejected delivery never enters the inbox', async () => {
    const before = await inboxCount();
    await t.app.webhook(webhookSaleBody({ id: 2011, status: 'PAGO', userId: 1 }));
    await t.app.webhook(webhookSaleBody({ id: 2011, status: 'PAGO' }), {
      token: 'nope-nope-nope-nope',
    });
    await t.app.postback(postbackBody({ id: 2011, status: 'PAGO' }), {
      signature: sign('x', POSTBACK_SECRET),
    });
    expect(await inboxCount()).toBe(before);
  });
});

describe('headers kept in the inbox', () => {
  // Secret-bearing headers a delivery may carry (a proxy's credentials, a browser's cookies, a
  // misrouted gateway key, the postback's HMAC): never stored, whatever the channel.
  const secretHeaders = {
    Authorization: 'Bearer proxy-credential-0123456789',
    Cookie: 'session=cookie-value-0123456789',
    'X-Api-Private-Key': 'sk_private-key-0123456789',
  };

  it('an inbox row keeps no X-Signature, Authorization, Cookie or X-Api-Private-Key, on either channel', async () => {
    const postback = await t.app.postback(postbackBody({ id: 2201, status: 'PAGO' }), {
      headers: { ...secretHeaders, 'X-Request-Id': 'postback-2201' },
    });
    const webhook = await t.app.webhook(webhookSaleBody({ id: 2202, status: 'PAGO' }), {
      headers: {
        ...secretHeaders,
        'X-Signature': sign('anything'),
        'X-Request-Id': 'webhook-2202',
      },
    });
    expect([postback.status, webhook.status]).toEqual([200, 200]);
    const rows = await t.db.database.sql<{ channel: string; headers: Record<string, string> }[]>`
      select channel, headers from inbox_events
       where id in (${postback.body.id as number}, ${webhook.body.id as number}) order by id`;
    expect(rows.map((row) => row.channel)).toEqual(['postback', 'webhook']);
    for (const { channel, headers } of rows) {
      // Headers are kept: the row has the harmless ones.
      expect(headers['x-request-id'], channel).toBe(
        `${channel}-${channel === 'postback' ? 2201 : 2202}`,
      );
      expect(headers['content-type'], channel).toBe('application/json');
      for (const name of ['x-signature', 'authorization', 'cookie', 'x-api-private-key']) {
        expect(headers, `${channel} keeps ${name}`).not.toHaveProperty(name);
      }
      const everything = JSON.stringify(headers);
      for (const value of Object.values(secretHeaders)) expect(everything).not.toContain(value);
    }
  });
});

describe('source allowlist', () => {
  it('403 when the source is outside WEBHOOK_ALLOWED_CIDRS (after the token check)', async () => {
    const other = await startTestPaymirror({
      db: t.db,
      queue: t.queue,
      roles: 'ingress',
      env: { WEBHOOK_ALLOWED_CIDRS: '203.0.113.0/24' },
    });
    try {
      expect((await other.webhook(webhookSaleBody({ id: 2100, status: 'PAGO' }))).status).toBe(403);
      expect(
        (
          await other.webhook(webhookSaleBody({ id: 2100, status: 'PAGO' }), {
            token: 'bad-bad-bad-bad-bad',
          })
        ).status,
      ).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('behind one trusted proxy, the forwarded address is the one checked', async () => {
    const other = await startTestPaymirror({
      db: t.db,
      queue: t.queue,
      roles: 'ingress',
      env: { WEBHOOK_ALLOWED_CIDRS: '203.0.113.0/24', TRUSTED_PROXY_COUNT: '1' },
    });
    try {
      const allowed = await other.webhook(webhookSaleBody({ id: 2101, status: 'PAGO' }), {
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(allowed.status).toBe(200);
      const forged = await other.webhook(webhookSaleBody({ id: 2102, status: 'PAGO' }), {
        headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.1' },
      });
      expect(forged.status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe('storage down', () => {
  const deadDb = () => ({ ...t.db, url: 'postgres://postgres@127.0.0.1:1/nowhere' });

  it('Postgres unreachable: fsynced to the spool and answered 200; in the inbox, in order and deduped, once Postgres is back', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'paymirror-spool-test-'));
    const down = await startTestPaymirror({
      db: deadDb(),
      queue: t.queue,
      roles: 'ingress',
      env: { SPOOL_DIR: spoolDir },
    });
    const bodies = [3001, 3002, 3001].map((id) =>
      JSON.stringify(postbackBody({ id, status: 'PAGO' })),
    );
    try {
      for (const raw of bodies) {
        const answer = await down.postback(null, { raw });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ status: 'accepted', id: null, spooled: true });
      }
      const ready = await fetch(`${down.url}/readyz`);
      expect(ready.status).toBe(503);
      const readiness = (await ready.json()) as Record<string, string>;
      expect(readiness).toMatchObject({
        status: 'not ready',
        postgres: 'down',
        redis: 'ok',
        spool: expect.stringMatching(/3 deliveries spooled/),
      });
      // Nothing of the driver's own words (addresses, error codes) in a public answer.
      expect(JSON.stringify(readiness)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect|:1\b/i);
      expect(await (await fetch(`${down.metricsUrl}/metrics`)).text()).toMatch(
        /paymirror_spooled_deliveries_total 3/,
      );
    } finally {
      await down.close();
    }
    expect(await inboxCountFor([3001, 3002])).toBe(0);

    // A new process on the same spool, with Postgres reachable: the spool drains at start.
    const up = await startTestPaymirror({
      db: t.db,
      queue: t.queue,
      roles: 'ingress',
      env: { SPOOL_DIR: spoolDir },
    });
    try {
      // The replay commits the rows, then removes the segment: wait for both.
      const rows = await waitFor(async () => {
        const found = await t.db.database.sql<{ resource_id: string; delivery_count: number }[]>`
          select resource_id, delivery_count from inbox_events where resource_id in (3001, 3002) order by id`;
        const drained = readdirSync(spoolDir).length === 0;
        return drained && found.length === 2 && found[0]?.delivery_count === 2 ? found : undefined;
      });
      expect(rows.map((r) => r.resource_id)).toEqual([3001, 3002]);
      expect(readdirSync(spoolDir)).toEqual([]);
    } finally {
      await up.close();
    }
  });

  it('503 with Retry-After, and nothing acknowledged, when the spool cannot be written either', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'paymirror-spool-test-'));
    // The spool counts every byte in its directory against SPOOL_MAX_MB: this one is full.
    writeFileSync(join(spoolDir, 'filler'), Buffer.alloc(2 * 1024 * 1024));
    const down = await startTestPaymirror({
      db: deadDb(),
      queue: t.queue,
      roles: 'ingress',
      env: { SPOOL_DIR: spoolDir, SPOOL_MAX_MB: '1' },
    });
    try {
      const answer = await down.postback(postbackBody({ id: 3003, status: 'PAGO' }));
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      expect(answer.body.status).toBeUndefined();
    } finally {
      await down.close();
    }
    expect(await inboxCountFor([3003])).toBe(0);
  });
});

describe('Redis down', () => {
  // A Redis of this test's own, on a free loopback port: the shared one is never stopped.
  let redis: ChildProcess | undefined;
  afterAll(async () => {
    if (redis) await stopProcess(redis);
  });

  it('/readyz answers 503 naming Redis while it is down, and 200 once it is back', async () => {
    const port = await freePort();
    redis = startRedisServer(port, []);
    await waitForPing(port);
    const app = await startTestPaymirror({
      db: t.db,
      queue: { ...t.queue, redisUrl: `redis://127.0.0.1:${port}` },
      roles: 'ingress',
    });
    /** The body of the first /readyz answer with this status. */
    const readyzOnce = (status: number, what: string) =>
      waitFor(
        async () => {
          const answer = await fetch(`${app.url}/readyz`);
          const body = (await answer.json()) as Record<string, string>;
          return answer.status === status ? body : undefined;
        },
        { what },
      );
    try {
      expect(await readyzOnce(200, '/readyz ready')).toEqual({
        status: 'ready',
        postgres: 'ok',
        redis: 'ok',
      });

      await stopProcess(redis);
      const down = await readyzOnce(503, '/readyz to see Redis down');
      expect(down).toEqual({ status: 'not ready', postgres: 'ok', redis: 'down' });
      // Nothing of the client's own words (addresses, error codes) in a public answer.
      expect(JSON.stringify(down)).not.toMatch(new RegExp(`ECONNREFUSED|127\\.0\\.0\\.1|${port}`));

      redis = startRedisServer(port, []);
      await waitForPing(port);
      expect(await readyzOnce(200, '/readyz to see Redis back')).toEqual({
        status: 'ready',
        postgres: 'ok',
        redis: 'ok',
      });
    } finally {
      await app.close();
    }
  });
});

async function inboxCountFor(ids: number[]): Promise<number> {
  const rows = await t.db.database
    .sql`select count(*)::int as n from inbox_events where resource_id = any(${ids})`;
  return rows[0]?.n as number;
}

describe('health', () => {
  it('healthz 200, readyz 200 with both services, metrics in Prometheus format', async () => {
    expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${t.app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', postgres: 'ok', redis: 'ok' });
    const metrics = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /paymirror_deliveries_total\{channel="postback",outcome="accepted",reason=""\} [1-9]/,
    );
  });

  it('the token in WEBHOOK_TOKEN is the one configured (sanity of the fixture)', async () => {
    const body = webhookSaleBody({ id: 2301, status: 'PAGO' });
    const configured = await t.app.webhook(body, { token: WEBHOOK_TOKEN });
    expect(configured.status).toBe(200);
    expect(configured.body.status).toBe('accepted');
    const last = WEBHOOK_TOKEN.at(-1) === 'a' ? 'b' : 'a';
    const other = await t.app.webhook(body, { token: `${WEBHOOK_TOKEN.slice(0, -1)}${last}` });
    expect(other.status).toBe(404);
  });
});

describe('quarantine', () => {
  it('one captured signed body in whitespace variants is one quarantined row', async () => {
    const body = { ...postbackBody({ id: 3901, status: 'PAGO' }), status: 'NOT_A_STATUS' };
    const compact = JSON.stringify(body);
    const variants = [compact, JSON.stringify(body, null, 2), JSON.stringify(body, null, '\t')];
    const answers = [];
    for (const raw of variants) {
      answers.push(await t.app.postback(null, { raw, signature: sign(compact) }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.body.status)).toEqual([
      'quarantined',
      'duplicate',
      'duplicate',
    ]);
    const rows = await t.db.database.sql`
      select count(*)::int as n, max(delivery_count) as deliveries from inbox_events
       where state = 'quarantined' and payload->>'id' = '3901'`;
    expect(rows).toEqual([{ n: 1, deliveries: 3 }]);
  });
});
