import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimRejected } from '../../../src/inbox/rejectedDeliveries.js';
import { WEBHOOK_TOKEN, webhookSaleBody } from '../../support/fixtures.js';
import { waitFor } from '../../support/paymirror.js';
import { useHostileApp, send, sql } from '../../support/hostile.js';

// Rejected deliveries under attack: kept safely, and bounded.
useHostileApp();

describe('rejected deliveries under attack', () => {
  it('an unknown webhook token is kept only as its sha256, never in clear', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/).filter((token) => token !== WEBHOOK_TOKEN),
        async (token) => {
          const answer = await send({
            path: `/webhooks/${token}`,
            headers: [['Content-Type', 'application/json']],
            body: Buffer.from(JSON.stringify(webhookSaleBody({ id: 1, status: 'PAGO' }))),
          });
          expect(answer.status).toBe(404);
          const sha = createHash('sha256').update(token).digest('hex');
          const rows = await waitFor(async () => {
            const found = await sql()<{ everything: string }[]>`
              select row_to_json(r)::text as everything from rejected_deliveries r
               where token_sha256 = ${sha}`;
            return found.length > 0 ? found : undefined;
          });
          for (const row of rows) expect(row.everything).not.toContain(token);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a flood of rejections is trimmed to the configured row count', async () => {
    const marker = `flood-${Date.now()}`;
    const flood = Array.from({ length: 60 }, (_, i) =>
      send({
        path: '/postbacks',
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Signature', '0'.repeat(64)],
          ['X-Hostile-Run', marker],
        ],
        body: Buffer.from(`{"flood":${i}}`),
      }),
    );
    for (const answer of await Promise.all(flood)) expect(answer.status).toBe(401);
    // Rejections are kept on the side: wait for all sixty before trimming.
    await waitFor(async () => {
      const [kept] = await sql()<{ n: number }[]>`
        select count(*)::int as n from rejected_deliveries where headers->>'x-hostile-run' = ${marker}`;
      return kept?.n === 60;
    });
    await trimRejected(sql(), { maxRows: 25, maxAgeDays: 7 });
    const [count] = await sql()<
      { n: number }[]
    >`select count(*)::int as n from rejected_deliveries`;
    expect(count?.n).toBeLessThanOrEqual(25);
  });
});
