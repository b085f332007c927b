import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDelivery } from '../../src/inbox/delivery.js';
import { parseJsonObject } from '../../src/ingress/rawBody.js';
import { MAX_JSON_DEPTH, jsonbTakesAsIs } from '../../src/notifications/jsonbSafe.js';
import { postbackBody } from '../support/fixtures.js';
import { useTestDatabase } from '../support/services.js';

// The ingress sends a body Postgres can take as it is for the jsonb column instead of the
// payload serialised again: Postgres must then store what JSON.parse read.
const test = useTestDatabase();
const sql = () => test().database.sql;

/** What Postgres stores for the body as it is, next to what it stores for the body re-serialised. */
async function storedBoth(body: Buffer): Promise<{ same: boolean; asIs: unknown }> {
  const reserialised = JSON.stringify(JSON.parse(body.toString('utf8')));
  const [row] = await sql()<{ same: boolean; as_is: unknown }[]>`
    select convert_from(${body}::bytea, 'UTF8')::jsonb = ${reserialised}::jsonb as same,
           convert_from(${body}::bytea, 'UTF8')::jsonb as as_is`;
  if (!row) throw new Error('no row');
  return { same: row.same, asIs: row.as_is };
}

const text = (json: string) => Buffer.from(json, 'utf8');

describe('jsonbTakesAsIs', () => {
  it('is true only for text Postgres stores as the value JSON.parse reads', async () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    const form = fc.constantFrom('compact', 'pretty', 'binary strings');
    await fc.assert(
      fc.asyncProperty(
        value,
        form,
        fc.string({ unit: 'binary', maxLength: 8 }),
        async (v, f, s) => {
          const json =
            f === 'pretty'
              ? JSON.stringify({ v }, null, 2)
              : JSON.stringify(f === 'binary strings' ? { v, s } : { v });
          const body = text(json);
          // Only what it takes is checked: fast-check draws again (and fails the run if it
          // rarely takes anything), so every run checks a body against Postgres.
          fc.pre(jsonbTakesAsIs(body));
          expect((await storedBoth(body)).same).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes a gateway postback, escaped quotes and literals as they are', async () => {
    const bodies = [
      '{"id":1,"status":"PAGO","amount":"1990","tangible":true,"fee":null,"paid":false}',
      '{"title":"Camiseta \\"Azul\\" – São Paulo","nested":{"list":[1,2.5,-3,0]}}',
      // An escaped backslash before `u0000` is text, not an escape.
      '{"a":"\\\\u0000","b":"x\\"1e5"}',
      ` { "pretty" :\n\t[ 1 , 2 ] } `,
    ];
    for (const json of bodies) {
      expect(jsonbTakesAsIs(text(json)), json).toBe(true);
      expect((await storedBoth(text(json))).same, json).toBe(true);
    }
  });

  it("is how a gateway's postback reaches the jsonb column, compact or not", () => {
    const payload = postbackBody({ id: 4242, status: 'PAGO' });
    for (const body of [JSON.stringify(payload), JSON.stringify(payload, null, 2)]) {
      const rawBody = text(body);
      const delivery = buildDelivery({
        channel: 'postback',
        rawBody,
        payload: parseJsonObject(rawBody) ?? {},
        headers: {},
        sourceAddress: null,
      });
      expect(delivery.payloadSource).toEqual({ kind: 'body' });
    }
  });

  it('keeps a number as written', async () => {
    const body = text('{"a":10.50,"b":12345678901234567890}');
    expect(jsonbTakesAsIs(body)).toBe(true);
    const [row] = await sql()<{ a: string; b: string }[]>`
      select (convert_from(${body}::bytea, 'UTF8')::jsonb)->>'a' as a,
             (convert_from(${body}::bytea, 'UTF8')::jsonb)->>'b' as b`;
    expect(row).toEqual({ a: '10.50', b: '12345678901234567890' });
  });

  it('refuses what Postgres cannot store or would store otherwise', async () => {
    const refused = [
      '{"a":"\\u0000"}', // U+0000: jsonb refuses it
      '{"a":"\\ud800"}', // a lone surrogate: jsonb refuses it
      '{"a":"\\u00e9"}', // any \u escape, storable or not
      '{"a":1e131072}', // overflows numeric
      '{"a":1E5}',
      '{"a":2.5e-3}',
      `{"a":${'9'.repeat(1001)}}`,
      `{"a":0.${'1'.repeat(1000)}}`,
      `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`,
      '{"a":"unterminated',
    ];
    for (const json of refused) expect(jsonbTakesAsIs(text(json)), json).toBe(false);
    // Invalid UTF-8: node reads U+FFFD where Postgres refuses the bytes.
    expect(
      jsonbTakesAsIs(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
    ).toBe(false);
    await expect(sql()`select ${'{"a":1e131072}'}::jsonb`).rejects.toThrow(/numeric/);
  });

  it('draws its limits where they are', async () => {
    const deepest = `${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    expect(jsonbTakesAsIs(text(deepest))).toBe(true);
    expect((await storedBoth(text(deepest))).same).toBe(true);
    // Kept as written, as any number: JSON.parse reads Infinity from it, and from what jsonb gives back.
    const longest = text(`{"a":${'9'.repeat(1000)}}`);
    expect(jsonbTakesAsIs(longest)).toBe(true);
    const { asIs } = await storedBoth(longest);
    expect(asIs).toEqual({ a: Number.POSITIVE_INFINITY });
  });
});
