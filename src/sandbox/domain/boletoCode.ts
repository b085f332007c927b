/**
 * Boleto "linha digitável" (47 digits) in the FEBRABAN layout:
 *
 *   barcode (44): bank(3) currency(1) DV(1) due factor(4) value(10) free field(25)
 *   line (47):    bank+currency+free[0,5) +mod10 | free[5,15) +mod10 | free[15,25) +mod10
 *                 | DV | due factor + value
 *
 * The sandbox uses bank code 999 (no real bank) and a free field derived from the sale id.
 */
import type { Cents } from '../../domain/money.js';

const SANDBOX_BANK_CODE = '999';
const BRL_CURRENCY_DIGIT = '9';
const DUE_FACTOR_BASE = Date.UTC(1997, 9, 7);
const DAY_MS = 86_400_000;
const MAX_BOLETO_VALUE_CENTS = 9_999_999_999;

/** FEBRABAN module 10: weights 2,1,2,1… from the right, digits of each product summed. */
export function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

/** FEBRABAN module 11 for the barcode's general check digit: weights 2..9 from the right. */
export function mod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 0 || digit === 10 || digit === 11 ? 1 : digit;
}

/** Days since 1997-10-07; the factor restarts at 1000 after 9999 (February 2025). */
export function dueDateFactor(dueDate: Date): string {
  const days = Math.floor((dueDate.getTime() - DUE_FACTOR_BASE) / DAY_MS);
  const factor = days > 9999 ? ((days - 10_000) % 9_000) + 1_000 : days;
  return String(factor).padStart(4, '0');
}

export interface BoletoInput {
  readonly saleId: number;
  readonly amountCents: Cents;
  readonly dueDate: Date;
}

export function buildBoletoLine(input: BoletoInput): string {
  // A value that does not fit the 10 digits is left open (zeros), as the layout allows.
  const value = input.amountCents <= MAX_BOLETO_VALUE_CENTS ? input.amountCents : 0;
  const freeField = String(input.saleId).padStart(25, '0').slice(-25);
  const factorAndValue = dueDateFactor(input.dueDate) + String(value).padStart(10, '0');
  const head = SANDBOX_BANK_CODE + BRL_CURRENCY_DIGIT;
  const generalDigit = mod11(head + factorAndValue + freeField);

  const field1 = head + freeField.slice(0, 5);
  const field2 = freeField.slice(5, 15);
  const field3 = freeField.slice(15, 25);
  return (
    field1 +
    mod10(field1) +
    field2 +
    mod10(field2) +
    field3 +
    mod10(field3) +
    generalDigit +
    factorAndValue
  );
}
