/**
 * A boleto's due date, read from its own code: the FEBRABAN layout carries a due factor (days
 * since 1997-10-07, restarting at 1000 after 9999, in February 2025) at barcode positions 6–9,
 * which are positions 34–37 of the 47-digit "linha digitável". Factor 0000: no due date.
 */
const DUE_FACTOR_BASE = Date.UTC(1997, 9, 7);
const DAY_MS = 86_400_000;
const FACTOR_CYCLE_DAYS = 9_000;

/**
 * The due date (a calendar day, as UTC midnight) nearest to `near` (the sale's creation) that
 * the factor names; null when the code is not a boleto line or barcode, or names no date.
 */
export function boletoDueDate(code: string, near: Date): Date | null {
  const digits = code.replace(/[\s.-]/g, '');
  const factorText =
    digits.length === 47 && /^\d+$/.test(digits)
      ? digits.slice(33, 37)
      : digits.length === 44 && /^\d+$/.test(digits)
        ? digits.slice(5, 9)
        : null;
  // Stryker disable next-line ConditionalExpression: without it Number(null) is 0, refused below
  if (factorText === null) return null;
  const factor = Number(factorText);
  if (factor < 1000) return null;
  // Days since the base for the first cycle, then the same factor every 9000 days after.
  const first = factor;
  const nearDays = Math.floor((near.getTime() - DUE_FACTOR_BASE) / DAY_MS);
  let best = first;
  // Stryker disable next-line EqualityOperator: at nearDays + 9000 it is `first` or 9000 after nearDays itself
  for (let days = first; days <= nearDays + FACTOR_CYCLE_DAYS; days += FACTOR_CYCLE_DAYS) {
    if (Math.abs(days - nearDays) < Math.abs(best - nearDays)) best = days;
  }
  return new Date(DUE_FACTOR_BASE + best * DAY_MS);
}

/**
 * The end of the `count`-th business day after `day` (weekends skipped; holidays are not
 * known here, so they count as business days) in America/Sao_Paulo, which keeps UTC−03:00.
 */
export function endOfBusinessDaysAfter(day: Date, count: number): Date {
  const cursor = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
  let left = count;
  while (left > 0) {
    cursor.setUTCDate(cursor.getUTCDate() + 1);
    const weekday = cursor.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left -= 1;
  }
  // 23:59:59.999 in São Paulo is 02:59:59.999 UTC the next day.
  return new Date(cursor.getTime() + DAY_MS + 3 * 3_600_000 - 1);
}
