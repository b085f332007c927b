import type { Cents } from './money.js';

/** A withdrawal's money as the gateway states it (docs/gateway.md 2.1), in centavos. */
export interface WithdrawalMoney {
  readonly amountCents: Cents;
  readonly netAmountCents: Cents;
  readonly feeFixedCents: Cents;
  readonly feeVariableCents: Cents;
  readonly feeTotalCents: Cents;
}

/** A stated value that its sibling fields contradict: `implied` is what they add up to. */
export interface FeeMismatch {
  readonly field: 'fee_total_cents' | 'net_amount_cents';
  readonly implied: Cents;
  readonly stated: Cents;
}

/**
 * Whether a withdrawal's fees add up: total = fixed + variable, and amount − total = net. The
 * gateway's values are stored all the same; a mismatch is only reported.
 */
export function withdrawalFeeMismatches(money: WithdrawalMoney): FeeMismatch[] {
  const mismatches: FeeMismatch[] = [];
  const total = money.feeFixedCents + money.feeVariableCents;
  if (total !== money.feeTotalCents) {
    mismatches.push({ field: 'fee_total_cents', implied: total, stated: money.feeTotalCents });
  }
  const net = money.amountCents - money.feeTotalCents;
  if (net !== money.netAmountCents) {
    mismatches.push({ field: 'net_amount_cents', implied: net, stated: money.netAmountCents });
  }
  return mismatches;
}

/** Whether two statements of a withdrawal's money are the same (nothing new to check). */
export function sameWithdrawalMoney(a: WithdrawalMoney, b: WithdrawalMoney): boolean {
  return (
    a.amountCents === b.amountCents &&
    a.netAmountCents === b.netAmountCents &&
    a.feeFixedCents === b.feeFixedCents &&
    a.feeVariableCents === b.feeVariableCents &&
    a.feeTotalCents === b.feeTotalCents
  );
}
