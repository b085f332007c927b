/**
 * The sandbox's fee rules. The spec shows no fee amounts, so these are the sandbox's own,
 * documented in src/sandbox/README.md. Percentages are basis points (1 bp = 0.01 %) applied
 * to integer centavos with round-half-up to the centavo, in bigint so that no product can
 * lose precision.
 *
 *   sale  PIX          1.00 %            (no fixed part)
 *   sale  CREDIT_CARD  4.99 % + 40 centavos
 *   sale  DEBIT_CARD   2.99 % + 40 centavos
 *   sale  BOLETO       flat 350 centavos
 *   cashout            fixed 200 centavos + variable 0.50 %
 *
 * A sale fee never exceeds the sale amount (a 1-centavo boleto nets 0, not -349).
 */
import type { Cents } from '../../domain/money.js';
import type { PaymentMethod } from './vocabulary.js';

interface FeeRule {
  readonly basisPoints: number;
  readonly fixedCents: Cents;
}

export const SALE_FEE_RULES: Readonly<Record<PaymentMethod, FeeRule>> = {
  PIX: { basisPoints: 100, fixedCents: 0 },
  CREDIT_CARD: { basisPoints: 499, fixedCents: 40 },
  DEBIT_CARD: { basisPoints: 299, fixedCents: 40 },
  BOLETO: { basisPoints: 0, fixedCents: 350 },
};

export const CASHOUT_FEE_RULE: FeeRule = { basisPoints: 50, fixedCents: 200 };

/** amount × basisPoints / 10 000, rounded half up to a whole centavo. */
export function basisPointsOf(amount: Cents, basisPoints: number): Cents {
  const numerator = BigInt(amount) * BigInt(basisPoints);
  return Number((numerator + 5_000n) / 10_000n);
}

export interface SaleFees {
  readonly systemFeeCents: Cents;
  readonly netAmountCents: Cents;
}

export function saleFees(amount: Cents, method: PaymentMethod): SaleFees {
  const rule = SALE_FEE_RULES[method];
  const fee = Math.min(amount, basisPointsOf(amount, rule.basisPoints) + rule.fixedCents);
  return { systemFeeCents: fee, netAmountCents: amount - fee };
}

export interface CashoutFees {
  readonly fixedCents: Cents;
  readonly variableCents: Cents;
  readonly totalCents: Cents;
  readonly netAmountCents: Cents;
}

/** Fees come out of the requested amount: the balance is debited the gross amount. */
export function cashoutFees(amount: Cents): CashoutFees {
  const fixed = Math.min(amount, CASHOUT_FEE_RULE.fixedCents);
  const variable = Math.min(amount - fixed, basisPointsOf(amount, CASHOUT_FEE_RULE.basisPoints));
  const total = fixed + variable;
  return {
    fixedCents: fixed,
    variableCents: variable,
    totalCents: total,
    netAmountCents: amount - total,
  };
}
