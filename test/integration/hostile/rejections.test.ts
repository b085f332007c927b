import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOKEN, webhookSaleBody } from '../../support/fixtures.js';
import { startTestPaymirror, waitFor } from '../../support/paymirror.js';
import { createTestQueuePrefix } from '../../support/services.js';
import { useHostileApp, send, sql } from '../../support/hostile.js';

// Rejected deliveries under attack: kept safely, and bounded.
const hostileApp = useHostileApp();

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

  it('the scheduler trims a flood of rejections to REJECTS_MAX_ROWS and drops those past REJECTS_MAX_AGE_DAYS', async () => {
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
    // Rejections are kept on the side: wait for all sixty before the scheduler starts.
    const ids = await waitFor(async () => {
      const rows = await sql()<{ id: string }[]>`
        select id from rejected_deliveries where headers->>'x-hostile-run' = ${marker} order by id`;
      return rows.length === 60 ? rows.map((row) => Number(row.id)) : undefined;
    });
    // The five newest are old by date: only the age limit removes them (the row limit keeps the
    // newest ids). 55 recent rows stay: only the row limit brings them down to 25.
    const backdated = ids.slice(-5);
    await sql()`update rejected_deliveries set received_at = now() - interval '8 days'
                 where id = any(${backdated})`;
    const newestRecent = ids[54];

    // The file's paymirror runs no scheduler: this one, and its retention, does the trimming.
    const queue = createTestQueuePrefix();
    const scheduler = await startTestPaymirror({
      db: hostileApp.db,
      queue,
      roles: 'scheduler',
      env: { REJECTS_MAX_ROWS: '25', REJECTS_MAX_AGE_DAYS: '7' },
    });
    try {
      const kept = await waitFor(
        async () => {
          const rows = await sql()<{ id: string }[]>`select id from rejected_deliveries`;
          return rows.length <= 25 ? rows.map((row) => Number(row.id)) : undefined;
        },
        { what: 'the scheduler to trim rejected_deliveries' },
      );
      for (const id of backdated) expect(kept).not.toContain(id);
      expect(kept).toContain(newestRecent);
      expect(kept.length).toBeGreaterThan(0);
    } finally {
      await scheduler.close();
      await queue.drop();
    }
  });
});
