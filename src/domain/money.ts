/**
 * The one place that converts the gateway's money units (docs/gateway.md 1.6).
 * Everything else handles integer centavos only. No float arithmetic ever touches money:
 * decimal strings are parsed digit by digit.
 *
 *   transaction notification amount, saleItems[].unitPrice  string of centavos   centsFromCentsString
 *   transaction notification fee, every GET transaction sum  number of centavos   centsFromCentsNumber
 *   withdrawal amount, netAmount, fees.*                     reais decimal string centsFromReaisString
 *   POST /api/public/cashout amount                          JSON number, reais   reaisNumberFromCents
 */

/** Integer centavos; always a safe, non-negative integer. */
export type Cents = number;

export class MoneyError extends Error {
  override readonly name = 'MoneyError';
  constructor(
    readonly input: unknown,
    readonly reason: string,
  ) {
    super(`invalid amount ${describe(input)}: ${reason}`);
  }
}

const CENTS_STRING = /^[0-9]+$/;
const REAIS_STRING = /^([0-9]+)(?:\.([0-9]{1,2}))?$/;

function describe(input: unknown): string {
  if (typeof input === 'string')
    return JSON.stringify(input.length > 40 ? input.slice(0, 40) + '…' : input);
  if (typeof input === 'number') return String(input);
  return typeof input;
}

function checkedSafe(input: unknown, value: number): Cents {
  if (!Number.isSafeInteger(value)) throw new MoneyError(input, 'too large');
  return value;
}

/** "15000" → 15000. Digits only: no sign, no spaces, no decimals, no exponent. */
export function centsFromCentsString(input: string): Cents {
  if (typeof input !== 'string' || !CENTS_STRING.test(input)) {
    throw new MoneyError(input, 'expected a string of centavos (digits only)');
  }
  return checkedSafe(input, Number(input));
}

/** 15000 → 15000. A JSON number that must already be a non-negative integer. */
export function centsFromCentsNumber(input: number): Cents {
  // Number.isInteger is false for anything but a number.
  if (!Number.isInteger(input) || input < 0) {
    throw new MoneyError(input, 'expected a non-negative integer number of centavos');
  }
  // -0 is an integer >= 0; store it as 0.
  return checkedSafe(input, input === 0 ? 0 : input);
}

/** "150.5" → 15050, "150.50" → 15050, "0.01" → 1. At most two decimals, no sign, no exponent. */
export function centsFromReaisString(input: string): Cents {
  const match = typeof input === 'string' ? REAIS_STRING.exec(input) : null;
  if (!match) {
    throw new MoneyError(input, 'expected a decimal string of reais with at most 2 decimals');
  }
  const [, whole, fraction = ''] = match;
  return checkedSafe(input, Number(whole) * 100 + Number(fraction.padEnd(2, '0')));
}

/** 15050 → "150.50": the canonical reais string (what the gateway's read form carries). */
export function reaisStringFromCents(cents: Cents): string {
  const value = centsFromCentsNumber(cents);
  const whole = Math.trunc(value / 100);
  const fraction = String(value % 100).padStart(2, '0');
  return `${whole}.${fraction}`;
}

/**
 * 15050 → 150.5, for the cashout request body. Going through the canonical decimal string
 * makes the JSON number serialise as exactly that decimal (150.5), never 150.49999….
 */
export function reaisNumberFromCents(cents: Cents): number {
  return Number(reaisStringFromCents(cents));
}

/** A JSON number of reais (a cashout request) → centavos, exactly, or a MoneyError. */
export function centsFromReaisNumber(input: number): Cents {
  // Number.isFinite is false for anything but a number.
  if (!Number.isFinite(input) || input < 0) {
    throw new MoneyError(input, 'expected a non-negative number of reais');
  }
  // String(150.5) is the shortest decimal that round-trips: "150.5". Exponent forms
  // ("1e+21", "1e-7") fail the reais pattern, as they should.
  return centsFromReaisString(String(input));
}

/** 123456 → "R$ 1.234,56": for people (reports, CLI tables), never for storage. */
export function formatBrl(cents: Cents): string {
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const whole = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const fraction = String(abs % 100).padStart(2, '0');
  return `${negative ? '-' : ''}R$ ${whole},${fraction}`;
}
