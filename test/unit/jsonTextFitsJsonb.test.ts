import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonTextFitsJsonb, jsonbText } from '../../src/notifications/jsonbSafe.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody } from '../support/fixtures.js';

describe('jsonTextFitsJsonb', () => {
  it('is true only for text whose parsed value jsonb can hold', () => {
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ unit: 'binary', maxLength: 12 }).map((value) => JSON.stringify({ value })),
      fc.string({ unit: 'binary', maxLength: 12 }).map((value) => `{"value":"${value}"}`),
    );
    fc.assert(
      fc.property(text, (json) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          return;
        }
        if (jsonTextFitsJsonb(json)) expect(jsonbText(parsed).ok).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves to jsonbText what it cannot vouch for', () => {
    expect(jsonTextFitsJsonb('{"city":"Recife","fee":2490}')).toBe(true);
    expect(jsonTextFitsJsonb('{"city":"\\u0000"}')).toBe(false);
    expect(jsonTextFitsJsonb('{"city":"\\u00e9"}')).toBe(false);
    expect(jsonTextFitsJsonb('{"city":"\ud800"}')).toBe(false);
    const deep = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(jsonTextFitsJsonb(deep)).toBe(false);
    expect(jsonTextFitsJsonb(deep.slice(1, -1))).toBe(true);
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
