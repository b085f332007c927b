/**
 * The gateway's dates (docs/gateway.md 2 and 6): ISO 8601 with a time and an offset, read
 * strictly. `Date.parse` is no judge: it reads "1" as 2001-01-01, a date without an offset in
 * the process's own time zone, and rolls 2026-02-31 over into March.
 *
 * Accepted: YYYY-MM-DDThh:mm[:ss[.fraction]] then Z, ±hh:mm or ±hhmm; years 0001–9999 (what
 * Postgres timestamptz takes back from Date#toISOString), every field within its calendar range.
 */
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

const MINUTE_MS = 60_000;

const FIRST = firstInstant();
const LAST = Date.parse('9999-12-31T23:59:59.999Z');

export function parseIsoInstant(value: string): Date | null {
  const match = ISO_WITH_OFFSET.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const offsetHours = zulu ? 0 : Number(oh);
  const offsetMinutes = zulu ? 0 : Number(om);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, millis);
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * MINUTE_MS;
  const instant = utc.getTime() - offsetMs;
  if (instant < FIRST || instant > LAST) return null;
  return new Date(instant);
}

export function isIsoInstant(value: string): boolean {
  return parseIsoInstant(value) !== null;
}

export const ISO_INSTANT_MESSAGE =
  'not an ISO 8601 date and time with an offset (Z or ±hh:mm) between the years 1 and 9999';

// Date.UTC would read year 1 as 1901: setUTCFullYear does not.
function firstInstant(): number {
  const first = new Date(0);
  first.setUTCFullYear(1, 0, 1);
  return first.getTime();
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
