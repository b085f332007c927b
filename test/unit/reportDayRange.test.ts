import { describe, expect, it } from 'vitest';
import { dayRangeSchema, daySchema } from '../../src/reports/dayRange.js';

describe('daySchema', () => {
  it.each(['2026-03-10', '2024-02-29', '2026-12-31', '1999-01-01'])('accepts %s', (day) => {
    expect(daySchema.parse(day)).toBe(day);
  });

  it.each([
    ['10/03/2026', 'expected a day as YYYY-MM-DD'],
    ['2026-3-10', 'expected a day as YYYY-MM-DD'],
    ['2026-03-10T00:00:00Z', 'expected a day as YYYY-MM-DD'],
    ['', 'expected a day as YYYY-MM-DD'],
    ['2026-02-29', 'not a calendar day'],
    ['2026-13-01', 'not a calendar day'],
    ['2026-04-31', 'not a calendar day'],
    ['2026-00-10', 'not a calendar day'],
  ])('rejects %s: %s', (day, message) => {
    const parsed = daySchema.safeParse(day);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(message);
  });
});

describe('dayRangeSchema', () => {
  it('accepts open ends and a single day', () => {
    expect(dayRangeSchema.parse({ from: null, to: null })).toEqual({ from: null, to: null });
    expect(dayRangeSchema.parse({ from: '2026-03-10', to: '2026-03-10' }).to).toBe('2026-03-10');
    expect(dayRangeSchema.parse({ from: null, to: '2026-03-10' }).from).toBeNull();
  });

  it('rejects --from after --to', () => {
    const parsed = dayRangeSchema.safeParse({ from: '2026-03-11', to: '2026-03-10' });
    expect(parsed.error?.issues[0]?.message).toBe('--from is after --to');
  });
});
