import { connect } from 'node:net';
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
      roles: 'ingress',
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

    // A postback from the blocked address is refused before its body is read, authentic or
    // not (telling would cost the CPU the limit exists to save); a webhook on the right token
    // is authenticated by its path, before any body, and still goes through.
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
    expect(signed.status).toBe(429);
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

  it('a blocked source gets its 429 before a byte of its body is read', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await sendTo(badPostback('127.0.0.4'))).status).toBe(401);
    }
    const { port } = new URL(limited.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.4' });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (text.includes('\r\n\r\n')) resolve(text);
        });
        socket.on('error', reject);
        // A 64 KiB body announced, 10 bytes sent, the rest never: only an answer that does
        // not wait for the body arrives.
        socket.write(
          'POST /postbacks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            `X-Signature: ${'f'.repeat(64)}\r\nX-Hostile-Run: ${run}\r\n` +
            'Content-Length: 65536\r\n\r\n{"id":1,"a',
        );
      });
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer.toLowerCase()).toContain('connection: close');
    } finally {
      socket.destroy();
    }
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
