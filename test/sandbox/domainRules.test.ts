import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideCashout } from '../../src/sandbox/domain/cashoutDecision.js';
import { basisPointsOf, cashoutFees, saleFees } from '../../src/sandbox/domain/fees.js';
import { saleBalanceChange } from '../../src/sandbox/domain/ledger.js';
import { judgeSaleMove, SALE_EDGES } from '../../src/sandbox/domain/saleMachine.js';
import { judgeWithdrawalMove } from '../../src/sandbox/domain/withdrawalMachine.js';
import { paymentMethodSchema, saleStatusSchema } from '../../src/sandbox/domain/vocabulary.js';

describe('fee rules', () => {
  it('charges PIX 1 %, credit card 4.99 % + 40, debit card 2.99 % + 40, boleto 350, rounding half up', () => {
    expect(saleFees(15050, 'PIX')).toEqual({ systemFeeCents: 151, netAmountCents: 14899 });
    expect(saleFees(15050, 'CREDIT_CARD')).toEqual({ systemFeeCents: 791, netAmountCents: 14259 });
    expect(saleFees(15050, 'DEBIT_CARD')).toEqual({ systemFeeCents: 490, netAmountCents: 14560 });
    expect(saleFees(15050, 'BOLETO')).toEqual({ systemFeeCents: 350, netAmountCents: 14700 });
    expect(basisPointsOf(50, 100)).toBe(1); // 0.5 rounds up
    expect(basisPointsOf(49, 100)).toBe(0);
  });

  it('never charges more than the sale amount', () => {
    expect(saleFees(100, 'BOLETO')).toEqual({ systemFeeCents: 100, netAmountCents: 0 });
  });

  it('charges cashouts 2.00 fixed + 0.50 % variable', () => {
    expect(cashoutFees(15050)).toEqual({
      fixedCents: 200,
      variableCents: 75,
      totalCents: 275,
      netAmountCents: 14775,
    });
  });

  it('always splits an amount exactly into fee and net', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom(...paymentMethodSchema.options),
        (amount, method) => {
          const fees = saleFees(amount, method);
          expect(fees.systemFeeCents + fees.netAmountCents).toBe(amount);
          expect(Number.isSafeInteger(fees.systemFeeCents) && fees.systemFeeCents >= 0).toBe(true);
          expect(fees.netAmountCents).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe('sale machine (docs/gateway.md 3.1)', () => {
  it('has no move out of a final status', () => {
    for (const final of ['CANCELADO', 'RECUSADO', 'ESTORNADO'] as const)
      expect(SALE_EDGES[final]).toEqual([]);
  });

  it('allows MED for PIX only and CHARGEBACK for cards only', () => {
    expect(judgeSaleMove('PIX', 'PAGO', 'MED').kind).toBe('allowed');
    expect(judgeSaleMove('CREDIT_CARD', 'PAGO', 'MED').kind).toBe('illegal');
    expect(judgeSaleMove('BOLETO', 'PAGO', 'MED').kind).toBe('illegal');
    expect(judgeSaleMove('CREDIT_CARD', 'PAGO', 'CHARGEBACK').kind).toBe('allowed');
    expect(judgeSaleMove('DEBIT_CARD', 'PAGO', 'CHARGEBACK').kind).toBe('allowed');
    expect(judgeSaleMove('PIX', 'PAGO', 'CHARGEBACK').kind).toBe('illegal');
    expect(judgeSaleMove('BOLETO', 'PAGO', 'CHARGEBACK').kind).toBe('illegal');
  });

  it('allows exactly the table edges for a method that may take them', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...saleStatusSchema.options),
        fc.constantFrom(...saleStatusSchema.options),
        (from, to) => {
          const verdict = judgeSaleMove('CREDIT_CARD', from, to);
          const expected = SALE_EDGES[from].includes(to) && to !== 'MED';
          expect(verdict.kind === 'allowed').toBe(expected);
        },
      ),
    );
  });
});

describe('withdrawal machine', () => {
  it('moves PENDING and PROCESSING forward only', () => {
    expect(judgeWithdrawalMove('PENDING', 'PROCESSING').kind).toBe('allowed');
    expect(judgeWithdrawalMove('PROCESSING', 'REJECTED').kind).toBe('allowed');
    expect(judgeWithdrawalMove('PROCESSING', 'PENDING').kind).toBe('illegal');
    expect(judgeWithdrawalMove('COMPLETED', 'REJECTED').kind).toBe('illegal');
  });
});

describe('balance effects', () => {
  it('credits on payment, reserves during MED, returns on a win, drops the reserve on a loss', () => {
    expect(saleBalanceChange('PENDENTE', 'PAGO', 990, 0)).toEqual({
      availableDelta: 990,
      reserveDelta: 0,
      saleReserveCents: 0,
    });
    expect(saleBalanceChange('PAGO', 'MED', 990, 0)).toEqual({
      availableDelta: -990,
      reserveDelta: 990,
      saleReserveCents: 990,
    });
    expect(saleBalanceChange('MED', 'PAGO', 990, 990)).toEqual({
      availableDelta: 990,
      reserveDelta: -990,
      saleReserveCents: 0,
    });
    expect(saleBalanceChange('MED', 'ESTORNADO', 990, 990)).toEqual({
      availableDelta: 0,
      reserveDelta: -990,
      saleReserveCents: 0,
    });
    expect(saleBalanceChange('PAGO', 'ESTORNADO', 990, 0)).toEqual({
      availableDelta: -990,
      reserveDelta: 0,
      saleReserveCents: 0,
    });
    expect(saleBalanceChange('PENDENTE', 'CANCELADO', 990, 0)).toEqual({
      availableDelta: 0,
      reserveDelta: 0,
      saleReserveCents: 0,
    });
  });
});

describe('cashout decision order', () => {
  it('checks limits before balance', () => {
    expect(decideCashout(9_999, 0)).toMatchObject({ errorType: 'MINIMUM_VALUE' });
    expect(decideCashout(10_000_001, 0)).toMatchObject({ errorType: 'MAXIMUM_VALUE' });
    expect(decideCashout(10_000, 9_999)).toMatchObject({ errorType: 'INSUFFICIENT_BALANCE' });
    expect(decideCashout(10_000, 10_000)).toEqual({ kind: 'accept' });
    expect(decideCashout(10_000_000, 10_000_000)).toEqual({ kind: 'accept' });
  });
});
