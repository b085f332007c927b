import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOKEN, sign } from '../../support/fixtures.js';
import {
  useHostileApp,
  BODY_LIMIT,
  RUNS,
  send,
  inboxCount,
  expectAlive,
  anyBody,
  expectedWebhookStatus,
  userIdAnswer,
  isJsonObject,
} from '../../support/hostile.js';

// Authenticated requests with hostile bodies: stored, refused or quarantined, never a 5xx.
useHostileApp();

describe('authenticated hostile input', () => {
  it('any body with a valid signature: 200 (stored), 400 (not a JSON object) or 413, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, fc.boolean(), async (body, upper) => {
        const before = await inboxCount();
        const signature = upper ? sign(body).toUpperCase() : sign(body);
        const answer = await send({
          path: '/postbacks',
          headers: [
            ['Content-Type', 'application/json'],
            ['X-Signature', signature],
          ],
          body,
        });
        const expected =
          body.length > BODY_LIMIT ? 413 : isJsonObject(body) ? userIdAnswer(body) : 400;
        expect(answer.status, answer.body).toBe(expected);
        if (expected !== 200) expect(await inboxCount()).toBe(before);
        else
          expect(['accepted', 'quarantined', 'duplicate']).toContain(
            JSON.parse(answer.body).status,
          );
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });

  it('any body on the authentic webhook URL: 200, 400, 403 or 413, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const answer = await send({
          path: `/webhooks/${WEBHOOK_TOKEN}`,
          headers: [['Content-Type', 'application/json']],
          body,
        });
        const expected = body.length > BODY_LIMIT ? 413 : expectedWebhookStatus(body);
        expect(answer.status, answer.body).toBe(expected);
      }),
      { numRuns: RUNS * 2 },
    );
    await expectAlive();
  });
});
