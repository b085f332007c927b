import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonbHolds, jsonbText } from '../../src/notifications/jsonbSafe.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody } from '../support/fixtures.js';

/** The escape JSON.stringify writes only for U+0000 and a lone surrogate, its backslash not escaped. */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/;

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('jsonbHolds', () => {
  it('says what serialising the value and reading its escapes would say', () => {
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc
        .tuple(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'binary' }))
        .map(([key, value]) => JSON.stringify({ [key]: value })),
      fc.string({ unit: 'binary', maxLength: 12 }).map((value) => `{"value":"${value}"}`),
      fc
        .integer({ min: MAX_JSON_DEPTH - 3, max: MAX_JSON_DEPTH + 3 })
        .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    );
    fc.assert(
      fc.property(text, (json) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          return;
        }
        const storable =
          depthOf(parsed) <= MAX_JSON_DEPTH && !UNSTORABLE_ESCAPE.test(JSON.stringify(parsed));
        expect(jsonbHolds(parsed)).toBe(storable);
        expect(jsonbText(parsed).ok).toBe(storable);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses U+0000 and lone surrogates in keys and values, and deep nesting', () => {
    expect(jsonbHolds({ city: 'Recife', fee: 2490 })).toBe(true);
    expect(jsonbHolds({ city: '\u0000' })).toBe(false);
    expect(jsonbHolds({ ['\ud800']: 1 })).toBe(false);
    expect(jsonbHolds([['\udc00']])).toBe(false);
    expect(jsonbHolds({ city: '\ud83d\ude00' })).toBe(true);
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(jsonbHolds(JSON.parse(deep))).toBe(false);
    expect(jsonbHolds(JSON.parse(deep.slice(1, -1)))).toBe(true);
  });

  it('keeps shipping structured only when jsonb can hold it', () => {
    const shippingOf = (shipping: string) => {
      const result = parseNotification(
        'postback',
        postbackBody({ id: 7, status: 'PAGO', amount: '15050', shipping }),
      );
      if (!result.ok || result.notice.kind !== 'sale') throw new Error('a sale notice expected');
      return result.notice.shipping;
    };
    expect(shippingOf('{"city":"Recife"}')).toEqual({ city: 'Recife' });
    expect(shippingOf('{"city":"Jo\\u00e3o Pessoa"}')).toEqual({ city: 'João Pessoa' });
    expect(shippingOf('{"city":"\\u0000"}')).toBe('{"city":"\\u0000"}');
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    expect(shippingOf(deep)).toBe(deep);
  });
});
