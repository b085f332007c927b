import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOKEN, postbackBody, webhookSaleBody } from '../../support/fixtures.js';
import {
  useHostileApp,
  send,
  sql,
  expectAlive,
  answerOf,
  finished,
} from '../../support/hostile.js';

// SQL through payloads: stored verbatim, as data.
useHostileApp();
let nextId = 900_000_000;

describe('SQL through payloads', () => {
  const injections = [
    "'; drop table sales; --",
    "' or '1'='1",
    "\\'; select pg_sleep(10); --",
    '$1, $2); delete from inbox_events; --',
    "E'\\x27'",
    "') on conflict do nothing; --",
    '"; drop table sales; --',
    '${sql`drop table sales`}',
    '1::jsonb; truncate inbox_events',
    "'); copy sales to '/tmp/x'; --",
  ];
  const text = fc.oneof(
    fc.constantFrom(...injections),
    fc.string({ unit: 'grapheme', maxLength: 60 }).filter((value) => !value.includes('\u0000')),
  );

  it('SQL in every text field of a signed postback is stored verbatim, as data', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, text, async (name, email, pix, title) => {
        const id = (nextId += 1);
        const body = postbackBody({
          id,
          status: 'PAGO',
          customerName: name,
          customerEmail: email,
          customerDocument: name,
          customerPhone: email,
          pixKey: pix,
          externalTransactionId: pix,
          shipping: JSON.stringify({ street: name, city: email }),
        });
        const items = body.saleItems as Record<string, unknown>[];
        body.saleItems = items.map((item) => ({ ...item, title }));
        const answer = await answerOf(JSON.stringify(body), 'postback');
        expect(answer?.status).toBe('accepted');
        await finished((answer as { id: number }).id);
        const [sale] = await sql()`
          select customer_name, customer_email, customer_document, customer_phone, pix_code,
                 external_transaction_id, shipping from sales where id = ${id}`;
        expect(sale).toEqual({
          customer_name: name,
          customer_email: email,
          customer_document: name,
          customer_phone: email,
          pix_code: pix,
          external_transaction_id: pix,
          shipping: { street: name, city: email },
        });
        const [item] = await sql()`select title from sale_items where sale_id = ${id}`;
        expect(item?.title).toBe(title);
      }),
      { numRuns: 30, examples: [[injections[0], injections[1], injections[2], injections[3]]] },
    );
    const tables = await sql()<{ present: boolean }[]>`
      select to_regclass('public.sales') is not null and to_regclass('public.inbox_events') is not null
             as present`;
    expect(tables[0]?.present).toBe(true);
  });

  it('SQL as a status, a payment method or a type is kept verbatim in a quarantined or rejected row', async () => {
    for (const injection of injections) {
      const id = (nextId += 1);
      const raw = JSON.stringify({ ...postbackBody({ id, status: 'PAGO' }), status: injection });
      const answer = await answerOf(raw, 'postback');
      expect(answer?.status).toBe('quarantined');
      const [row] = await sql()`
        select payload->>'status' as status, convert_from(raw_body, 'UTF8') as raw
          from inbox_events where id = ${(answer as { id: number }).id}`;
      expect(row).toEqual({ status: injection, raw });
      const webhook = await send({
        path: `/webhooks/${WEBHOOK_TOKEN}`,
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(
          JSON.stringify({ ...webhookSaleBody({ id, status: 'PAGO' }), type: injection }),
        ),
      });
      expect(webhook.status).toBe(403);
    }
    await expectAlive();
  });
});
