import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../../src/domain/isoInstant.js';

describe('parseIsoInstant', () => {
  it.each([
    ['2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20T07:00:00-03:00', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20T07:00-0300', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20T10:00:00.123456Z', '2026-11-20T10:00:00.123Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseIsoInstant(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['the seconds', '2026-11-20T10:00:30Z', '2026-11-20T10:00:30.000Z'],
    ['December', '2026-12-15T10:00:00Z', '2026-12-15T10:00:00.000Z'],
    ['the 31st of a 31-day month', '2026-01-31T10:00:00Z', '2026-01-31T10:00:00.000Z'],
    ['hour 23', '2026-11-20T23:00:00Z', '2026-11-20T23:00:00.000Z'],
    ['minute 59', '2026-11-20T10:59:00Z', '2026-11-20T10:59:00.000Z'],
    ['second 59', '2026-11-20T10:00:59Z', '2026-11-20T10:00:59.000Z'],
    ['a positive offset, ahead of UTC', '2026-11-20T13:00:00+03:00', '2026-11-20T10:00:00.000Z'],
    ['an offset’s minutes', '2026-11-20T15:30:00+05:30', '2026-11-20T10:00:00.000Z'],
    ['an offset of 23 hours', '2026-11-20T23:00:00+23:00', '2026-11-20T00:00:00.000Z'],
    ['an offset’s minute 59', '2026-11-20T10:59:00+00:59', '2026-11-20T10:00:00.000Z'],
    ['the last millisecond of 9999', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    [
      '29 February of a century divisible by 400',
      '2000-02-29T00:00:00Z',
      '2000-02-29T00:00:00.000Z',
    ],
  ])('takes %s: reads %s as %s', (_, text, iso) => {
    expect(parseIsoInstant(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['month 00', '2026-00-10T10:00:00Z'],
    ['day 00', '2026-11-00T10:00:00Z'],
    ['second 60', '2026-11-20T10:00:60Z'],
    ['an offset’s minute 60', '2026-11-20T10:00:00+00:60'],
    ['29 February of a century not divisible by 400', '1900-02-29T00:00:00Z'],
    ['a five-digit year', '12026-11-20T10:00:00Z'],
    ['text after the offset', '2026-11-20T10:00:00Zjunk'],
  ])('refuses %s: %s', (_, text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });

  it.each([
    '1',
    '2026',
    '2026-11-20',
    '2026-11-20T10:00:00',
    '2026-11-20 10:00:00Z',
    '20 Nov 2026 10:00:00 GMT',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-20T24:00:00Z',
    '2026-11-20T10:60:00Z',
    '2026-11-20T10:00:00+24:00',
    '0000-12-31T23:00:00Z',
    '9999-12-31T23:59:59-01:00',
  ])('refuses %s', (text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });
});
