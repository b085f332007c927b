/**
 * The two unit renderings the sandbox needs beyond src/domain/money.ts, both built on it.
 */
import { centsFromCentsNumber, reaisStringFromCents } from '../../domain/money.js';
import type { Cents } from '../../domain/money.js';

/** 15000 → "15000": sale creation response and notification amounts (docs/gateway.md 1.6). */
export function centsString(cents: Cents): string {
  return String(centsFromCentsNumber(cents));
}

/** -15050 → "-150.50": balances, which may go negative after a refund (see ledger.ts). */
export function signedReaisString(cents: Cents): string {
  return cents < 0 ? `-${reaisStringFromCents(-cents)}` : reaisStringFromCents(cents);
}
