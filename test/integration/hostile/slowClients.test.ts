import { describe, expect, it } from 'vitest';
import { postbackBody, sign } from '../../support/fixtures.js';
import { useHostileApp, send, inboxCount, expectAlive, trickle } from '../../support/hostile.js';

// Slow clients are cut off at HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS.
useHostileApp();

describe('slow clients', () => {
  it('headers trickled one byte per 100 ms are cut off at HEADERS_TIMEOUT_MS', async () => {
    const answer = await trickle(
      Buffer.from('POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      Buffer.from(`X-Slow: ${'a'.repeat(400)}\r\n\r\n`),
      100,
    );
    expect(answer.error).not.toBe('client timeout');
    expect(answer.status).toBe(408); // Node's own answer to a request timeout
    // 1 s of timeout, checked at least every second, and some slack for a loaded machine.
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(answer.elapsedMs).toBeLessThan(6000);
    await expectAlive();
  });

  it('a signed body trickled one byte per 100 ms is cut off at REQUEST_TIMEOUT_MS and never stored', async () => {
    const before = await inboxCount();
    const body = Buffer.from(JSON.stringify(postbackBody({ id: 777_001, status: 'PAGO' })));
    const head = Buffer.from(
      'POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `X-Signature: ${sign(body)}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const answer = await trickle(head, body, 100);
    expect(answer.error).not.toBe('client timeout');
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(1800);
    expect(answer.elapsedMs).toBeLessThan(8000);
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
    for (const one of cut) expect(one.error).not.toBe('client timeout');
    await expectAlive();
  });
});
