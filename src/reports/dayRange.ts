import { z } from 'zod';

/**
 * The --from/--to filter: calendar days (YYYY-MM-DD, America/Sao_Paulo, like the views' `day`),
 * both inclusive; null is open-ended.
 */
export interface DayRange {
  readonly from: string | null;
  readonly to: string | null;
}

/** Every day: a report without --from or --to. */
export const ALL_DAYS: DayRange = { from: null, to: null };

function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.split('-').map(Number);
  if (year === undefined || month === undefined || day === undefined) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

export const daySchema = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, 'expected a day as YYYY-MM-DD')
  .refine(isCalendarDay, 'not a calendar day');

export const dayRangeSchema = z
  .object({ from: daySchema.nullable(), to: daySchema.nullable() })
  .refine((range) => range.from === null || range.to === null || range.from <= range.to, {
    message: '--from is after --to',
  });
