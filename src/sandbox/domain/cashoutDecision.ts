/**
 * Business checks of a cashout request after its body is valid, in the contract order of
 * src/sandbox/README.md: limits first (docs/gateway.md 8), then balance.
 */
import type { Cents } from '../../domain/money.js';

const CASHOUT_MINIMUM_CENTS: Cents = 10_000;
const CASHOUT_MAXIMUM_CENTS: Cents = 10_000_000;

export type CashoutDecision =
  | { readonly kind: 'accept' }
  | {
      readonly kind: 'refuse';
      readonly errorType: 'MINIMUM_VALUE' | 'MAXIMUM_VALUE' | 'INSUFFICIENT_BALANCE';
      readonly message: string;
    };

export function decideCashout(amountCents: Cents, availableCents: Cents): CashoutDecision {
  if (amountCents < CASHOUT_MINIMUM_CENTS) {
    return {
      kind: 'refuse',
      errorType: 'MINIMUM_VALUE',
      message: 'The minimum cashout amount is 100.00',
    };
  }
  if (amountCents > CASHOUT_MAXIMUM_CENTS) {
    return {
      kind: 'refuse',
      errorType: 'MAXIMUM_VALUE',
      message: 'The maximum cashout amount is 100000.00',
    };
  }
  if (amountCents > availableCents) {
    return {
      kind: 'refuse',
      errorType: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient available balance for this cashout',
    };
  }
  return { kind: 'accept' };
}
