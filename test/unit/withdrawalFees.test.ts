import { describe, expect, it } from 'vitest';
import {
  sameWithdrawalMoney,
  withdrawalFeeMismatches,
  type WithdrawalMoney,
} from '../../src/domain/withdrawalFees.js';

// A withdrawal's fees as the gateway states them: total = fixed + variable, net = amount − total.
const money: WithdrawalMoney = {
  amountCents: 15_050,
  netAmountCents: 14_751,
  feeFixedCents: 200,
  feeVariableCents: 99,
  feeTotalCents: 299,
};

describe('withdrawalFeeMismatches', () => {
  it('finds nothing when the fees add up', () => {
    expect(withdrawalFeeMismatches(money)).toEqual([]);
  });

  it('names a total that is not fixed + variable, with what they add up to', () => {
    expect(withdrawalFeeMismatches({ ...money, feeVariableCents: 100 })).toEqual([
      { field: 'fee_total_cents', implied: 300, stated: 299 },
    ]);
  });

  it('names a net that is not amount − total, with what they leave', () => {
    expect(withdrawalFeeMismatches({ ...money, netAmountCents: 14_750 })).toEqual([
      { field: 'net_amount_cents', implied: 14_751, stated: 14_750 },
    ]);
  });

  it('checks the net against the stated total, and names both when both are off', () => {
    // fixed + variable = 300 against a stated 310; the net is judged by the 310 stated.
    expect(
      withdrawalFeeMismatches({ ...money, feeTotalCents: 310, feeVariableCents: 100 }),
    ).toEqual([
      { field: 'fee_total_cents', implied: 300, stated: 310 },
      { field: 'net_amount_cents', implied: 14_740, stated: 14_751 },
    ]);
  });
});

describe('sameWithdrawalMoney', () => {
  it('is true for the same five values', () => {
    expect(sameWithdrawalMoney(money, { ...money })).toBe(true);
  });

  it.each([
    'amountCents',
    'netAmountCents',
    'feeFixedCents',
    'feeVariableCents',
    'feeTotalCents',
  ] as const)('is false when %s differs by one centavo', (field) => {
    expect(sameWithdrawalMoney(money, { ...money, [field]: money[field] + 1 })).toBe(false);
  });
});
