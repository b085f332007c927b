import { describe, expect, it } from 'vitest';
import {
  asText,
  canonicalJson,
  compareWithGateway,
  sameValue,
} from '../../src/mirror/compareFields.js';

const AT = '2026-03-01T12:00:00.000Z';

describe('compareWithGateway', () => {
  it('writes what the gateway gives that the mirror lacks, without a difference', () => {
    const result = compareWithGateway(
      { id: 1, netAmountCents: null, status: 'PAGO' },
      { netAmountCents: 14_000 },
    );
    expect(result).toEqual({ update: { netAmountCents: 14_000 }, differences: [] });
  });

  it('fills a field the mirror row does not have at all, without a difference', () => {
    const result = compareWithGateway({ id: 1 }, { reserveAmountCents: 500 });
    expect(result).toEqual({ update: { reserveAmountCents: 500 }, differences: [] });
  });

  it('overwrites a known value the gateway contradicts and names the snake_case column', () => {
    const result = compareWithGateway(
      { id: 1, netAmountCents: 14_000, customerEmail: 'a@x.com' },
      { netAmountCents: 13_500, customerEmail: 'a@x.com' },
    );
    expect(result.update).toEqual({ netAmountCents: 13_500 });
    expect(result.differences).toEqual([
      { field: 'net_amount_cents', mirrorValue: '14000', gatewayValue: '13500' },
    ]);
  });

  it('leaves alone what the gateway gives as null or does not give', () => {
    const result = compareWithGateway(
      { id: 1, netAmountCents: 14_000, completedAt: new Date(AT), cardBrand: 'visa' },
      { netAmountCents: null, completedAt: undefined },
    );
    expect(result).toEqual({ update: {}, differences: [] });
  });

  it('takes equal values as equal: numbers, instants by time, JSON whatever its key order', () => {
    const result = compareWithGateway(
      {
        amountCents: 100,
        createdAt: new Date(AT),
        shipping: { city: 'Recife', address: { zip: '50000', street: 'Rua A' } },
      },
      {
        amountCents: 100,
        createdAt: new Date(AT),
        shipping: { address: { street: 'Rua A', zip: '50000' }, city: 'Recife' },
      },
    );
    expect(result).toEqual({ update: {}, differences: [] });
  });

  it('shows instants as ISO strings and JSON canonically in a difference', () => {
    const result = compareWithGateway(
      { completedAt: new Date(AT), shipping: { b: 1, a: 2 } },
      { completedAt: new Date('2026-03-01T12:00:01.000Z'), shipping: { b: 1, a: 3 } },
    );
    expect(result.differences).toEqual([
      {
        field: 'completed_at',
        mirrorValue: AT,
        gatewayValue: '2026-03-01T12:00:01.000Z',
      },
      { field: 'shipping', mirrorValue: '{"a":2,"b":1}', gatewayValue: '{"a":3,"b":1}' },
    ]);
    expect(result.update).toEqual({
      completedAt: new Date('2026-03-01T12:00:01.000Z'),
      shipping: { b: 1, a: 3 },
    });
  });

  it('turns every capital of a property into _lowercase in the column name', () => {
    const result = compareWithGateway({ aBC: 'x' }, { aBC: 'y' });
    expect(result.differences.map((difference) => difference.field)).toEqual(['a_b_c']);
  });

  it('reports a difference even when the mirror holds a falsy known value', () => {
    const result = compareWithGateway(
      { feeCents: 0, title: '', tangible: false },
      { feeCents: 1, title: 'x', tangible: true },
    );
    expect(result.differences).toEqual([
      { field: 'fee_cents', mirrorValue: '0', gatewayValue: '1' },
      { field: 'title', mirrorValue: '', gatewayValue: 'x' },
      { field: 'tangible', mirrorValue: 'false', gatewayValue: 'true' },
    ]);
  });
});

describe('sameValue', () => {
  it('compares instants by time, not by identity', () => {
    expect(sameValue(new Date(AT), new Date(AT))).toBe(true);
    expect(sameValue(new Date(AT), new Date('2026-03-01T12:00:00.001Z'))).toBe(false);
  });

  it('never takes two unreadable instants for the same one', () => {
    expect(sameValue(new Date(Number.NaN), new Date(Number.NaN))).toBe(false);
  });

  it('never takes an instant for its ISO string, either way round', () => {
    expect(sameValue(AT, new Date(AT))).toBe(false);
    expect(sameValue(new Date(AT), AT)).toBe(false);
  });

  it('never takes null for an object whose JSON is null, either way round', () => {
    expect(sameValue(null, new Date(Number.NaN))).toBe(false);
    expect(sameValue(new Date(Number.NaN), null)).toBe(false);
    expect(sameValue(null, null)).toBe(true);
  });

  it('compares objects and arrays by content', () => {
    expect(sameValue({ a: [1, 2] }, { a: [1, 2] })).toBe(true);
    expect(sameValue({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameValue([1], [1])).toBe(true);
  });

  it('compares everything else strictly', () => {
    expect(sameValue(1, 1)).toBe(true);
    expect(sameValue(1, '1')).toBe(false);
    expect(sameValue('a', 'b')).toBe(false);
  });
});

describe('asText', () => {
  it('is null for null and undefined', () => {
    expect(asText(null)).toBeNull();
    expect(asText(undefined)).toBeNull();
  });

  it('is the ISO string of an instant, canonical JSON of an object, else the value as text', () => {
    expect(asText(new Date(AT))).toBe(AT);
    expect(asText({ b: 1, a: [2, 1] })).toBe('{"a":[2,1],"b":1}');
    expect(asText(15_050)).toBe('15050');
    expect(asText(false)).toBe('false');
    expect(asText('PAGO')).toBe('PAGO');
  });
});

describe('canonicalJson', () => {
  it('sorts the keys of every object, however they came', () => {
    const sorted = '{"a":1,"b":2,"c":3,"d":4}';
    expect(canonicalJson({ a: 1, b: 2, c: 3, d: 4 })).toBe(sorted);
    expect(canonicalJson({ d: 4, c: 3, b: 2, a: 1 })).toBe(sorted);
    expect(canonicalJson({ c: 3, a: 1, d: 4, b: 2 })).toBe(sorted);
    expect(canonicalJson({ b: 2, d: 4, a: 1, c: 3 })).toBe(sorted);
  });

  it('sorts nested objects and keeps arrays, strings and nulls as they are', () => {
    expect(canonicalJson({ z: { y: 'ab', x: null }, a: [{ d: 1, c: 2 }, 'b', 'a'] })).toBe(
      '{"a":[{"c":2,"d":1},"b","a"],"z":{"x":null,"y":"ab"}}',
    );
  });
});
