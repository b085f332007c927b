import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createSharedRateLimiter, readSharedBudget } from '../../src/gateway/sharedRateLimiter.js';
import { ADMIN_FAILURES_MAX } from '../../src/ingress/adminGate.js';
import { postbackBody, sign } from '../support/fixtures.js';
import { inboxRowFinished, startTestPaymirror } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { createTestQueuePrefix } from '../support/services.js';

// The console over HTTP (the browser tests in test/browser look at it in Chromium).
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const XSS = '<img src=x onerror=alert(1)>';
const t = useTestApp({ env: () => ({ ADMIN_TOKEN }) });
const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

const get = (path: string, headers: Record<string, string> = asAdmin) =>
  fetch(`${t.app.metricsUrl}${path}`, { headers, redirect: 'manual' });

async function signIn(token: string, origin?: string): Promise<Response> {
  return fetch(`${t.app.metricsUrl}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(origin ? { origin } : {}),
    },
    body: new URLSearchParams({ token, next: '/console/cashouts' }).toString(),
  });
}

describe('who may read the console', () => {
  it('refuses a request without the token, or with a wrong one, with 401 and the sign-in form', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-admin-token-0000' },
    ];
    for (const headers of refused) {
      for (const path of ['/console', '/console/deliveries', '/console/sales/1']) {
        const answer = await get(path, headers);
        expect(answer.status, path).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="paymirror console"');
        const page = await answer.text();
        expect(page).toContain('<form method="post" action="/console/login">');
        expect(page).not.toContain('Deliveries</a');
      }
    }
  });

  it('admits the token as bull-board takes it: Bearer, or Basic with it as the password', async () => {
    expect((await get('/console/deliveries')).status).toBe(200);
    const basic = `Basic ${Buffer.from(`anyone:${ADMIN_TOKEN}`).toString('base64')}`;
    expect((await get('/console/deliveries', { authorization: basic })).status).toBe(200);
    expect((await get('/console')).headers.get('location')).toBe('/console/deliveries');
  });

  it('signs a browser in with a cookie that is not the token, HttpOnly and SameSite=Strict', async () => {
    expect((await signIn('not-the-admin-token-0000')).status).toBe(401);
    const answer = await signIn(ADMIN_TOKEN);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/console/cashouts');
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^paymirror_console=[0-9]+\.[A-Za-z0-9_-]{43}; Path=\/console; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain(ADMIN_TOKEN);
    const session = cookie.split(';')[0] ?? '';
    expect((await get('/console/cashouts', { cookie: session })).status).toBe(200);
    expect((await get('/console/cashouts', { cookie: `${session}x` })).status).toBe(401);

    const out = await fetch(`${t.app.metricsUrl}/console/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: session },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^paymirror_console=; .*Max-Age=0/);
  });

  it('refuses a sign-in posted from another site', async () => {
    expect((await signIn(ADMIN_TOKEN, 'https://evil.example')).status).toBe(403);
    expect((await signIn(ADMIN_TOKEN, 'null')).status).toBe(403);
    expect((await signIn(ADMIN_TOKEN, t.app.metricsUrl)).status).toBe(303);
  });

  it('counts wrong tokens with bull-board, per address; the right token still gets in', async () => {
    const queue = createTestQueuePrefix();
    const app = await startTestPaymirror({ db: t.db, queue, env: { ADMIN_TOKEN } });
    try {
      const wrong = { authorization: 'Bearer not-the-admin-token-0000' };
      for (let i = 0; i < ADMIN_FAILURES_MAX; i++) {
        const path = i % 2 === 0 ? '/admin/queues' : '/console/deliveries';
        expect((await fetch(`${app.metricsUrl}${path}`, { headers: wrong })).status).toBe(401);
      }
      const refused = await fetch(`${app.metricsUrl}/console/deliveries`, { headers: wrong });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const form = await fetch(`${app.metricsUrl}/console/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=still-not-the-admin-token',
      });
      expect(form.status).toBe(429);
      const operator = await fetch(`${app.metricsUrl}/console/deliveries`, { headers: asAdmin });
      expect(operator.status).toBe(200);
    } finally {
      await app.close();
      await queue.drop();
    }
  });
});

describe('what the console answers', () => {
  it('only reads: any other method is 405', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await fetch(`${t.app.metricsUrl}/console/deliveries`, {
        method,
        headers: asAdmin,
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('sends a strict Content-Security-Policy, never framed, no X-Powered-By', async () => {
    for (const path of ['/console/deliveries', '/console/login', '/console/assets/console.js']) {
      const answer = await get(path);
      const policy = answer.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe');
      expect(answer.headers.get('x-powered-by')).toBeNull();
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const page = await (await get('/console/deliveries')).text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('serves its files and Chart.js from the app, nothing from elsewhere', async () => {
    const chart = await get('/console/assets/chart.umd.min.js');
    expect(chart.status).toBe(200);
    expect(chart.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await chart.text()).toMatch(/Chart\.js v4/);
    expect((await get('/console/assets/console.css')).status).toBe(200);
    expect((await get('/console/assets/../../package.json')).status).toBe(404);
    const totals = await (await get('/console/totals')).text();
    for (const [, source] of totals.matchAll(/(?:src|href)="([^"]+)"/g)) {
      expect(source, 'a local URL').toMatch(/^\//);
    }
  });

  it("escapes what the gateway relays, and shows a delivery's headers without its signature", async () => {
    const raw = JSON.stringify(
      postbackBody({ id: 71_001, status: 'PAGO', customerName: XSS, customerEmail: `${XSS}@x` }),
    );
    const answer = await t.app.postback(null, { raw });
    expect(answer.body.status).toBe('accepted');
    await inboxRowFinished(t.sql(), answer.body.id as number);

    const sale = (await (await get('/console/sales/71001')).text()).replace(/\s+/g, ' ');
    expect(sale).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(sale).not.toContain(XSS);
    expect(sale).toContain('R$ 150,00');
    expect(sale).toContain('set by a signed postback');

    const delivery = await (await get(`/console/deliveries/${String(answer.body.id)}`)).text();
    expect(delivery).toContain('content-type');
    expect(delivery).not.toContain(sign(raw));
    expect(delivery.toLowerCase()).not.toContain('x-signature');
    expect(delivery).not.toContain(XSS);
  });

  it('downloads each table as the CLI renders CSV', async () => {
    const answer = await get('/console/deliveries?channel=postback&csv=deliveries');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(answer.headers.get('content-disposition')).toBe(
      'attachment; filename="paymirror-deliveries.csv"',
    );
    const [header, ...lines] = (await answer.text()).trim().split('\n');
    expect(header).toBe(
      'id,received_at,channel,resource_type,resource_id,notified_status,state,outcome,reason,' +
        'delivery_count,attempts',
    );
    expect(
      lines.some((line) => /^\d+,\d{4}-\d\d-\d\dT[\d:.]+Z,postback,sale,71001,PAGO,/.test(line)),
    ).toBe(true);
    expect((await get('/console/deliveries?csv=nothing-like-it')).status).toBe(404);
  });

  it('filters the tail, and refuses a filter it cannot read', async () => {
    const webhooks = await (await get('/console/deliveries?channel=webhook')).text();
    expect(webhooks).not.toContain('/console/sales/71001');
    const bySale = await (await get('/console/deliveries?type=sale&record=71001')).text();
    expect(bySale).toContain('/console/sales/71001');
    expect((await get('/console/deliveries?channel=fax')).status).toBe(400);
    expect((await get('/console/deliveries?from=2026-13-01T00:00')).status).toBe(400);
  });

  it('answers 404 for a record the mirror does not have', async () => {
    expect((await get('/console/sales/999999')).status).toBe(404);
    expect((await get('/console/sales/abc')).status).toBe(404);
    expect((await get('/console/withdrawals/999999')).status).toBe(404);
    expect((await get('/console/lookup?kind=sale&id=71001')).headers.get('location')).toBe(
      '/console/sales/71001',
    );
  });
});

describe('the gateway budget the health page shows', () => {
  it('is read from the shared bucket without taking from it', async () => {
    const queue = createTestQueuePrefix();
    const redis = new Redis(queue.redisUrl);
    const key = `${queue.prefix}:budget-read`;
    try {
      expect(await readSharedBudget(redis, { maxPerSecond: 5, key })).toBe(5);
      const limiter = createSharedRateLimiter(redis, { maxPerSecond: 5, key });
      for (let i = 0; i < 3; i++) await limiter.acquire();
      const left = await readSharedBudget(redis, { maxPerSecond: 5, key });
      // Two left, plus what refilled (5 a second) between the takes and the read.
      expect(left).toBeGreaterThanOrEqual(2);
      expect(left).toBeLessThan(3);
      expect(await readSharedBudget(redis, { maxPerSecond: 5, key })).toBeLessThan(3);
    } finally {
      await redis.del(key);
      redis.disconnect();
      await queue.drop();
    }
  });
});
