import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TOKEN, postbackBody, sign, webhookSaleBody } from '../../support/fixtures.js';
import { startTestPaymirror, waitFor, type TestPaymirror } from '../../support/paymirror.js';
import { createTestQueuePrefix } from '../../support/services.js';
import { useHostileApp, type RawRequest, send, sql } from '../../support/hostile.js';

// The per-source auth-failure limit, end to end.
const h = useHostileApp();

describe('auth-failure limit', () => {
  let limited: TestPaymirror;
  /** Marks this describe's requests in rejected_deliveries.headers (the fuzzing shares the table). */
  const run = `limiter-${Date.now()}`;
  const sendTo = (request: RawRequest) =>
    send(
      { ...request, headers: [...(request.headers ?? []), ['X-Hostile-Run', run]] },
      limited.url,
    );
  const badPostback = (localAddress: string): RawRequest => ({
    path: '/postbacks',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Signature', 'f'.repeat(64)],
    ],
    body: Buffer.from('{"id":1}'),
    localAddress,
  });
  /** Rejections kept for this describe's requests, by source address. */
  const kept = async (): Promise<Record<string, number>> => {
    const rows = await sql()<{ source_address: string; n: number }[]>`
      select source_address, count(*)::int as n from rejected_deliveries
       where headers->>'x-hostile-run' = ${run} group by source_address`;
    return Object.fromEntries(rows.map((row) => [row.source_address, row.n]));
  };

  // Its own prefix: the failure counts live in Redis, shared by every process of one prefix.
  const limiterQueue = createTestQueuePrefix();
  beforeAll(async () => {
    limited = await startTestPaymirror({
      db: h.db,
      queue: limiterQueue,
      roles: 'ingress,worker',
      env: {
        AUTH_FAILURES_MAX: '5',
        AUTH_FAILURES_WINDOW_SECONDS: '60',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32,127.0.0.2/32',
      },
    });
  });
  afterAll(async () => {
    await limited?.close();
    await limiterQueue.drop();
  });

  it('after 5 unauthenticated failures a source gets 429 with Retry-After; other sources and webhooks on the right token do not', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await sendTo(badPostback('127.0.0.1'))).status).toBe(401);
    }
    const blocked = await sendTo(badPostback('127.0.0.1'));
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    const unknownToken = await sendTo({
      path: '/webhooks/not-the-token-0123456789',
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from('{}'),
      localAddress: '127.0.0.1',
    });
    expect(unknownToken.status).toBe(429);

    // A correctly signed postback from the blocked address is accepted: the HMAC, not the
    // address, decides; a webhook on the right token is authenticated by its path.
    const raw = JSON.stringify(postbackBody({ id: 880_001, status: 'PAGO' }));
    const signed = await sendTo({
      path: '/postbacks',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Signature', sign(raw)],
      ],
      body: Buffer.from(raw),
      localAddress: '127.0.0.1',
    });
    expect(signed.status).toBe(200);
    expect(JSON.parse(signed.body)).toMatchObject({ status: 'accepted' });
    const webhook = await sendTo({
      path: `/webhooks/${WEBHOOK_TOKEN}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 880_002, status: 'PAGO' }))),
      localAddress: '127.0.0.1',
    });
    expect(webhook.status).toBe(200);

    // Another source is counted on its own.
    expect((await sendTo(badPostback('127.0.0.2'))).status).toBe(401);
    // Rejections are kept on the side: wait for the other source's one, then the blocked
    // requests must have cost no row.
    await waitFor(async () => (await kept())['127.0.0.2'] === 1, { what: 'rejection kept' });
    expect(await kept()).toEqual({ '127.0.0.1': 5, '127.0.0.2': 1 });
  });

  it("bad signatures sent from the gateway's own address never stop its authentic postbacks", async () => {
    // The gateway and an attacker behind one address (a proxy, a NAT): bad signatures between
    // every real postback, far past the limit, and every real one is stored and applied.
    const gateway = '127.0.0.5';
    const ids = [880_101, 880_102, 880_103, 880_104, 880_105, 880_106];
    const answers: number[] = [];
    for (const id of ids) {
      for (let i = 0; i < 3; i += 1) await sendTo(badPostback(gateway));
      const raw = JSON.stringify(postbackBody({ id, status: 'PAGO' }));
      const answer = await sendTo({
        path: '/postbacks',
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Signature', sign(raw)],
        ],
        body: Buffer.from(raw),
        localAddress: gateway,
      });
      answers.push(answer.status);
    }
    expect(answers).toEqual(ids.map(() => 200));
    // Past the limit, the forgeries themselves are answered 429 and not kept.
    expect((await sendTo(badPostback(gateway))).status).toBe(429);
    await waitFor(async () => (await kept())[gateway] === 5, { what: 'rejections kept' });
    // Every real one is applied to the mirror.
    await waitFor(
      async () => {
        const paid = await sql()<{ n: number }[]>`
          select count(*)::int as n from sales where id = any(${ids}) and status = 'PAGO'`;
        return paid[0]?.n === ids.length;
      },
      { what: 'authentic postbacks applied' },
    );
  });

  it('403 for a source outside the allowlist counts too', async () => {
    const fromOutside = (): RawRequest => ({
      path: `/webhooks/${WEBHOOK_TOKEN}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 880_003, status: 'PAGO' }))),
      localAddress: '127.0.0.3',
    });
    for (let i = 0; i < 5; i += 1) expect((await sendTo(fromOutside())).status).toBe(403);
    const blocked = await sendTo(fromOutside());
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  });
});
