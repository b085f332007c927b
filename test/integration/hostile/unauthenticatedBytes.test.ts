import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BODY_HEAD_BYTES } from '../../../src/inbox/keptBody.js';
import { reverifyRejected } from '../../../src/ingress/reverifyRejected.js';
import { SELLER_USER_ID, WEBHOOK_TOKEN, postbackBody, sign } from '../../support/fixtures.js';
import { inWaves, waitFor } from '../../support/paymirror.js';
import { useTestApp } from '../../support/testApp.js';

// What unauthenticated requests write is bounded in bytes (SECURITY.md, "Denial of service"):
// by the byte budget and the per-source sample, not by the flood.
const BUDGET = 256 * 1024;
const SAMPLE = 3;
const BODY = 48 * 1024;
const OTHER_SECRET = 'a-secret-paymirror-was-not-given-0123';

const t = useTestApp({
  roles: 'ingress',
  env: () => ({
    UNAUTHENTICATED_BYTES_PER_MINUTE: String(BUDGET),
    REJECTS_SAMPLE_PER_HOUR: String(SAMPLE),
    // The flood comes from many addresses, forwarded by one trusted proxy (the test).
    TRUSTED_PROXY_COUNT: '1',
    // The per-source failure limit has tests of its own; here every request must be judged.
    AUTH_FAILURES_MAX: '0',
  }),
});
const sql = () => t.sql();

function padded(body: Record<string, unknown>, size: number): string {
  const text = JSON.stringify({ ...body, padding: '' });
  return JSON.stringify({ ...body, padding: 'x'.repeat(size - text.length) });
}

async function metric(name: string, kind: string): Promise<number> {
  const text = await (await fetch(`${t.app.metricsUrl}/metrics`)).text();
  const match = new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)`, 'm').exec(text);
  return Number(match?.[1] ?? 0);
}

describe('bytes written by unauthenticated requests', () => {
  it('reverify moves the sampled rows and says which it cannot check again', async () => {
    // A secret mix-up: the gateway signs with a secret paymirror does not have yet.
    const source = '10.9.9.9';
    const sent = [];
    for (let i = 0; i < SAMPLE + 2; i += 1) {
      const body = padded(postbackBody({ id: 8_100_000 + i, status: 'PAGO' }), 4 * 1024);
      const answer = await t.app.post('/postbacks', body, {
        'content-type': 'application/json',
        'x-signature': sign(body, OTHER_SECRET),
        'x-forwarded-for': source,
      });
      sent.push(answer.status);
    }
    expect(sent).toEqual(Array(SAMPLE + 2).fill(401));
    const kept = await waitFor(async () => {
      const rows = await sql()<{ truncated: boolean }[]>`
        select body_truncated as truncated from rejected_deliveries
         where source_address = ${source} order by id`;
      return rows.length === SAMPLE + 2 ? rows : undefined;
    });
    // Stored on the side, so not necessarily in the order sent: three whole, two heads.
    expect(kept.map((row) => row.truncated).sort()).toEqual([false, false, false, true, true]);

    const summary = await reverifyRejected(sql(), {
      postbackSecrets: [OTHER_SECRET],
      webhookTokens: [WEBHOOK_TOKEN],
      sellerUserId: SELLER_USER_ID,
      sourceAllowlist: null,
      dedupeWindowHours: 24,
    });
    expect(summary.moved).toBe(SAMPLE);
    expect(summary.notRecheckable).toBeGreaterThanOrEqual(2);
    const [inbox] = await sql()<{ rows: number }[]>`
      select count(*)::int as rows from inbox_events
       where resource_type = 'sale' and resource_id between 8100000 and 8100004`;
    expect(inbox?.rows).toBe(SAMPLE);
  });
  it('a bad-signature flood of 48 KB bodies from 200 addresses writes what the budget allows, not what the flood sends', async () => {
    const FLOOD = 600;
    const [before] = await sql()<{ bytes: string }[]>`
      select pg_total_relation_size('rejected_deliveries') as bytes`;
    const keptBefore = await metric('paymirror_unauthenticated_kept_bytes_total', 'rejected');
    const started = Date.now();
    const statuses = await inWaves(FLOOD, 25, async (i) => {
      const answer = await fetch(`${t.app.url}/postbacks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-signature': 'f'.repeat(64),
          'x-forwarded-for': `10.1.${i % 200}.7`,
          'x-flood': 'bad-signature',
        },
        body: padded({ flood: i }, BODY),
      });
      await answer.arrayBuffer();
      return answer.status;
    });
    const elapsedMs = Date.now() - started;
    expect(new Set(statuses)).toEqual(new Set([401]));

    // Each rejection is stored on the side, or skipped and counted: wait for all of them.
    const stored = await waitFor(async () => {
      const [row] = await sql()<{ rows: number }[]>`
        select count(*)::int as rows from rejected_deliveries where headers->>'x-flood' = 'bad-signature'`;
      const skipped = await metric('paymirror_unauthenticated_skipped_rows_total', 'rejected');
      return (row?.rows ?? 0) + skipped === FLOOD ? (row?.rows ?? 0) : undefined;
    });
    const rows = await sql()<
      { raw: number; headers: number; size: number; truncated: boolean; sha: string | null }[]
    >`
      select octet_length(raw_body) as raw, octet_length(headers::text) as headers,
             body_bytes as size, body_truncated as truncated, body_sha256 as sha
        from rejected_deliveries where headers->>'x-flood' = 'bad-signature'`;
    expect(rows).toHaveLength(stored);
    expect(stored).toBeLessThan(FLOOD / 2);

    // Every kept row: digest and size of the whole body; the body whole, or its first 1 KiB.
    for (const row of rows) {
      expect(row.size).toBe(BODY);
      expect(row.sha).toMatch(/^[0-9a-f]{64}$/);
      expect(row.raw).toBe(row.truncated ? BODY_HEAD_BYTES : BODY);
    }
    const whole = rows.filter((row) => !row.truncated).length;
    expect(whole).toBeGreaterThan(0);
    expect(whole).toBeLessThanOrEqual(Math.ceil(BUDGET / BODY));

    // What was written: bounded by the budget (and its refill while the flood ran).
    const allowance = BUDGET * (1 + elapsedMs / 60_000);
    const written = rows.reduce((sum, row) => sum + row.raw + row.headers, 0);
    expect(written).toBeLessThanOrEqual(allowance);
    const [after] = await sql()<{ bytes: string }[]>`
      select pg_total_relation_size('rejected_deliveries') as bytes`;
    const growth = Number(after?.bytes) - Number(before?.bytes);
    // Pages, TOAST chunks and the index round it up; the flood itself sent 29 MB.
    expect(growth).toBeLessThan(4 * allowance);
    expect(growth).toBeLessThan((FLOOD * BODY) / 20);
    const keptBytes = await metric('paymirror_unauthenticated_kept_bytes_total', 'rejected');
    expect(keptBytes - keptBefore).toBeLessThan(allowance);
    expect(
      await metric('paymirror_unauthenticated_skipped_bytes_total', 'rejected'),
    ).toBeGreaterThan((FLOOD - stored) * BODY);
  });

  it('a quarantined webhook past the budget keeps digest, headers, size and first 1 KiB, and is still answered quarantined', async () => {
    // The flood before spent the budget; whatever refilled since goes to the first few.
    const bodies = Array.from({ length: 40 }, (_, i) =>
      padded({ type: 'TRANSACTION', userId: SELLER_USER_ID, status: 'PAGO', unparseable: i }, BODY),
    );
    const answers = await inWaves(bodies.length, 10, async (i) => {
      const answer = await fetch(`${t.app.url}/webhooks/${WEBHOOK_TOKEN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-flood': 'quarantine' },
        body: bodies[i],
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    });
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: 'quarantined', id: expect.any(Number) });
    }
    const rows = await sql()<
      {
        id: string;
        raw: Buffer;
        payload: unknown;
        size: number;
        truncated: boolean;
        sha: string;
        flood: string;
      }[]
    >`
      select id, raw_body as raw, payload, body_bytes as size, body_truncated as truncated,
             body_sha256 as sha, headers->>'x-flood' as flood
        from inbox_events where id = any(${answers.map((a) => a.body.id as number)}::int8[])`;
    expect(rows).toHaveLength(bodies.length);
    const truncated = rows.filter((row) => row.truncated);
    expect(truncated.length).toBeGreaterThan(bodies.length / 2);
    for (const row of truncated) {
      const body = bodies.find((b) => createHash('sha256').update(b).digest('hex') === row.sha);
      expect(body, 'the digest is the whole body’s').toBeDefined();
      expect(row.raw.equals(Buffer.from(body as string).subarray(0, BODY_HEAD_BYTES))).toBe(true);
      expect(row.size).toBe(BODY);
      expect(row.payload).toBeNull();
      expect(row.flood).toBe('quarantine');
    }
    // The same body again is its duplicate, truncated or not.
    const again = await fetch(`${t.app.url}/webhooks/${WEBHOOK_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies.at(-1),
    });
    expect(await again.json()).toEqual({ status: 'duplicate', id: answers.at(-1)?.body.id });
  });

  it('a signed postback that is quarantined keeps its whole body, whatever the budget', async () => {
    const body = padded({ userId: SELLER_USER_ID, id: 'not-a-number', status: 'PAGO' }, BODY);
    const answer = await t.app.post('/postbacks', body, {
      'content-type': 'application/json',
      'x-signature': sign(body),
    });
    expect(answer.body).toEqual({ status: 'quarantined', id: expect.any(Number) });
    const [row] = await sql()<{ raw: Buffer; truncated: boolean }[]>`
      select raw_body as raw, body_truncated as truncated from inbox_events
       where id = ${answer.body.id as number}`;
    expect(row?.truncated).toBe(false);
    expect(row?.raw.toString()).toBe(body);
  });
});
