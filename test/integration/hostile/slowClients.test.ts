import { describe, expect, it } from 'vitest';
import { postbackBody, sign } from '../../support/fixtures.js';
import { startTestPaymirror } from '../../support/paymirror.js';
import { createTestQueuePrefix } from '../../support/services.js';
import { useHostileApp, send, inboxCount, expectAlive, trickle } from '../../support/hostile.js';

// Slow clients are cut off by HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS: Node answers 408 and
// closes the connection before the client has finished. (The file's paymirror has 1 s / 2 s;
// each drip below would take 40 s or more.)
const hostileApp = useHostileApp();

describe('slow clients', () => {
  it('headers trickled one byte per 100 ms are cut off by HEADERS_TIMEOUT_MS: 408, closed before they end', async () => {
    // Only the headers timeout can cut them here: the request timeout is ten minutes.
    const queue = createTestQueuePrefix();
    const app = await startTestPaymirror({
      db: hostileApp.db,
      queue,
      roles: 'ingress',
      env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '600000' },
    });
    try {
      const drip = Buffer.from(`X-Slow: ${'a'.repeat(400)}\r\n\r\n`);
      const answer = await trickle(
        Buffer.from('POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
        drip,
        100,
        app.url,
      );
      expect(answer.error).not.toBe('client timeout');
      expect(answer.status).toBe(408); // Node's own answer to a request timeout
      expect(answer.headers.get('connection')).toBe('close');
      expect(answer.dripped).toBeLessThan(drip.length);
    } finally {
      await app.close();
      await queue.drop();
    }
    await expectAlive();
  });

  it('a signed body trickled one byte per 100 ms is cut off by REQUEST_TIMEOUT_MS: 408, closed before it ends, never stored', async () => {
    const before = await inboxCount();
    const body = Buffer.from(JSON.stringify(postbackBody({ id: 777_001, status: 'PAGO' })));
    const head = Buffer.from(
      'POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `X-Signature: ${sign(body)}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // The headers arrive at once: only the request timeout applies to the body.
    const answer = await trickle(head, body, 100);
    expect(answer.error).not.toBe('client timeout');
    expect(answer.status).toBe(408);
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.dripped).toBeLessThan(body.length);
    expect(await inboxCount()).toBe(before);
    await expectAlive();
  });

  it('many slow connections at once do not stop the server from answering', async () => {
    const slow = Array.from({ length: 50 }, () =>
      trickle(Buffer.from('POST /postbacks HTTP/1.1\r\n'), Buffer.from('X'.repeat(1000)), 200),
    );
    const raw = JSON.stringify(postbackBody({ id: 881_001, status: 'PAGO' }));
    const answer = await send({
      path: '/postbacks',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Signature', sign(raw)],
      ],
      body: Buffer.from(raw),
    });
    expect(answer.status).toBe(200);
    const cut = await Promise.all(slow);
    for (const one of cut) {
      expect(one.error).not.toBe('client timeout');
      expect(one.dripped).toBeLessThan(1000);
    }
    await expectAlive();
  });
});
