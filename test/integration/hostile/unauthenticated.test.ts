import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOKEN } from '../../support/fixtures.js';
import {
  useHostileApp,
  RUNS,
  type RawRequest,
  bytesOf,
  send,
  inboxCount,
  expectAlive,
  expectContractStatus,
  hostileNotification,
  anyBody,
  contentType,
  badSignature,
  badToken,
  expectedWebhookStatus,
} from '../../support/hostile.js';

// Unauthenticated requests: any body, content type, signature, token, route.
useHostileApp();

describe('unauthenticated hostile input', () => {
  it('postbacks with any body, content type and invalid X-Signature: 400/401/413/415, never a row', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyBody.chain((body) => fc.tuple(fc.constant(body), badSignature(body), contentType)),
        async ([body, signature, type]) => {
          const before = await inboxCount();
          const request: RawRequest = {
            path: '/postbacks',
            headers: [
              ['Content-Type', type],
              ['X-Signature', signature],
            ],
            body,
          };
          const answer = await send(request);
          expectContractStatus(request, answer, [400, 401, 413, 415, 429]);
          expect(await inboxCount()).toBe(before);
        },
      ),
      { numRuns: RUNS * 3 },
    );
    await expectAlive();
  });

  it('webhooks on any path token that is not the configured one: 404 (or 400 for a malformed request line), never a row', async () => {
    await fc.assert(
      fc.asyncProperty(badToken, anyBody, contentType, async (token, body, type) => {
        const before = await inboxCount();
        const request: RawRequest = {
          path: Buffer.concat([Buffer.from('/webhooks/'), bytesOf(token)]),
          headers: [['Content-Type', type]],
          body,
        };
        const answer = await send(request);
        expectContractStatus(request, answer, [400, 404, 429]);
        expect(await inboxCount()).toBe(before);
      }),
      { numRuns: RUNS * 3 },
    );
    await expectAlive();
  });

  it('a token Express cannot percent-decode is an unknown token: the same JSON 404', async () => {
    for (const token of ['%zz', '%E0%A4%A', '%', `${WEBHOOK_TOKEN}%zz`]) {
      const answer = await send({
        path: `/webhooks/${token}`,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from('{}'),
      });
      expect(answer.status, token).toBe(404);
      expect(answer.headers.get('content-type'), token).toMatch(/^application\/json/);
    }
    await expectAlive();
  });

  it('authentic webhook token, hostile type and userId: 403 and never a row unless both are right', async () => {
    await fc.assert(
      fc.asyncProperty(hostileNotification, async (body) => {
        const before = await inboxCount();
        const request: RawRequest = {
          path: `/webhooks/${WEBHOOK_TOKEN}`,
          headers: [['Content-Type', 'application/json']],
          body,
        };
        const answer = await send(request);
        const expected = expectedWebhookStatus(body);
        expect(answer.status, answer.body).toBe(expected);
        expect(await inboxCount()).toBe(expected === 200 ? before + 1 : before);
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });

  it('the other routes and methods answer 404, never a 5xx', async () => {
    for (const [method, path] of [
      ['GET', '/postbacks'],
      ['PUT', '/postbacks'],
      ['DELETE', `/webhooks/${WEBHOOK_TOKEN}`],
      ['POST', '/postbacks/..'],
      ['POST', '/%2e%2e/postbacks'],
      ['POST', '/webhooks'],
      ['POST', '/webhooks/'],
      ['POST', '/admin/queues'],
      ['GET', '/%zz'],
      ['GET', '/healthz/..%2f..%2fetc/passwd'],
    ] as const) {
      const answer = await send({ method, path, body: Buffer.from('{}') });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    await expectAlive();
  });
});
