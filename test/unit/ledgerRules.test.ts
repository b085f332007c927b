import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ZERO,
  entriesFor,
  impliedBalances,
  sumEntries,
  type Balances,
  type RecordState,
} from '../../src/books/ledgerRules.js';
import { SALE_STATUSES } from '../../src/domain/saleMachine.js';
import { WITHDRAWAL_STATUSES } from '../../src/domain/withdrawalMachine.js';

const sale = (status: string, net: number | null = 9_000, denied = false): RecordState => ({
  resourceType: 'sale',
  status,
  amountCents: 10_000,
  netAmountCents: net,
  denied,
});
const withdrawal = (status: string, denied = false, amount = 15_050): RecordState => ({
  resourceType: 'withdrawal',
  status,
  amountCents: amount,
  netAmountCents: null,
  denied,
});

const add = (a: Balances, b: Balances): Balances => ({
  available: a.available + b.available,
  reserved: a.reserved + b.reserved,
});

/** Books a path from nothing, as the writer does; what each step booked. */
function book(path: readonly RecordState[]) {
  let booked = ZERO;
  let previous: RecordState | null = null;
  const steps = path.map((state) => {
    const entries = entriesFor(booked, previous, state);
    booked = add(booked, sumEntries(entries));
    previous = state;
    return { entries, booked };
  });
  return steps;
}

describe('the journal rules', () => {
  it('imply the balances of each state', () => {
    expect(impliedBalances(sale('PAGO'))).toEqual({ available: 9_000, reserved: 0 });
    expect(impliedBalances(sale('PAGO', null))).toEqual({ available: 10_000, reserved: 0 });
    expect(impliedBalances(sale('MED'))).toEqual({ available: 0, reserved: 9_000 });
    expect(impliedBalances(sale('CHARGEBACK'))).toEqual({ available: 0, reserved: 9_000 });
    for (const status of ['PENDENTE', 'EM_PROCESSAMENTO', 'ESTORNADO', 'FALHA', 'CANCELADO']) {
      expect(impliedBalances(sale(status))).toEqual(ZERO);
    }
    expect(impliedBalances(sale('PAGO', 9_000, true))).toEqual(ZERO);
    for (const status of ['PENDING', 'PROCESSING', 'COMPLETED']) {
      expect(impliedBalances(withdrawal(status))).toEqual({ available: -15_050, reserved: 0 });
    }
    for (const status of ['REJECTED', 'FAILED', 'CANCELLED']) {
      expect(impliedBalances(withdrawal(status))).toEqual(ZERO);
    }
    expect(impliedBalances(withdrawal('PENDING', true))).toEqual(ZERO);
  });

  it('imply nothing for a record the mirror does not have', () => {
    expect(impliedBalances(null)).toEqual(ZERO);
  });

  it("take a withdrawal's amount, never a net it may carry", () => {
    const withNet: RecordState = { ...withdrawal('PENDING'), netAmountCents: 14_000 };
    expect(impliedBalances(withNet)).toEqual({ available: -15_050, reserved: 0 });
  });

  it('name each move by what happened to the money', () => {
    const kinds = (path: RecordState[]) =>
      book(path).map(({ entries }) =>
        entries.map((entry) => `${entry.kind} ${entry.account} ${entry.amountCents}`),
      );
    expect(
      kinds([sale('PENDENTE'), sale('PAGO', null), sale('PAGO'), sale('MED'), sale('PAGO')]),
    ).toEqual([
      [],
      ['payment available 10000'],
      ['fee_adjustment available -1000'],
      ['dispute_opened available -9000', 'dispute_opened reserved 9000'],
      ['dispute_won available 9000', 'dispute_won reserved -9000'],
    ]);
    expect(kinds([sale('PAGO'), sale('CHARGEBACK'), sale('ESTORNADO')])).toEqual([
      ['payment available 9000'],
      ['dispute_opened available -9000', 'dispute_opened reserved 9000'],
      ['dispute_lost reserved -9000'],
    ]);
    expect(kinds([sale('PAGO'), sale('ESTORNADO')])[1]).toEqual(['refund available -9000']);
    // Only ESTORNADO is a refund or a dispute lost; a sale leaving its money otherwise is not.
    expect(kinds([sale('PAGO'), sale('CANCELADO')])[1]).toEqual(['correction available -9000']);
    expect(kinds([sale('MED'), sale('FALHA')])[1]).toEqual(['correction reserved -9000']);
    expect(kinds([sale('PENDENTE'), sale('MED')])[1]).toEqual([
      'payment available 9000',
      'dispute_opened available -9000',
      'dispute_opened reserved 9000',
    ]);
    expect(kinds([sale('PAGO'), sale('PAGO', 9_000, true), sale('PAGO')]).slice(1)).toEqual([
      ['denial available -9000'],
      ['restoration available 9000'],
    ]);
    expect(kinds([withdrawal('PENDING'), withdrawal('COMPLETED')])).toEqual([
      ['withdrawal available -15050'],
      [],
    ]);
    for (const returned of ['REJECTED', 'FAILED', 'CANCELLED']) {
      expect(kinds([withdrawal('PROCESSING'), withdrawal(returned)])[1]).toEqual([
        'withdrawal_returned available 15050',
      ]);
    }
    // A status that returns nothing the machine knows of: the debit undone, as a correction.
    expect(kinds([withdrawal('PROCESSING'), withdrawal('EXPIRED')])[1]).toEqual([
      'correction available 15050',
    ]);
  });

  it('correct what the journal holds that the previous state did not imply', () => {
    const entries = entriesFor({ available: 123, reserved: 0 }, sale('PENDENTE'), sale('PAGO'));
    expect(entries.map((entry) => [entry.kind, entry.amountCents])).toEqual([
      ['correction', -123],
      ['payment', 9_000],
    ]);
    const reserved = entriesFor({ available: 0, reserved: 123 }, sale('PENDENTE'), sale('PAGO'));
    expect(reserved.map((entry) => [entry.kind, entry.account, entry.amountCents])).toEqual([
      ['correction', 'reserved', -123],
      ['payment', 'available', 9_000],
    ]);
  });

  it("book a settled withdrawal's new amount as a correction (a withdrawal has no fee)", () => {
    const entries = entriesFor(
      impliedBalances(withdrawal('PENDING')),
      withdrawal('PENDING'),
      withdrawal('PENDING', false, 20_000),
    );
    expect(entries).toEqual([{ account: 'available', amountCents: -4_950, kind: 'correction' }]);
  });

  it('book a move no machine makes (a sale state to a withdrawal state) as corrections', () => {
    const booked = impliedBalances(sale('PAGO'));
    const entries = entriesFor(booked, sale('PAGO'), withdrawal('PENDING'));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.kind === 'correction')).toBe(true);
    expect(add(booked, sumEntries(entries))).toEqual(impliedBalances(withdrawal('PENDING')));
  });

  it('never book a refund for a state named ESTORNADO that is not a sale', () => {
    const entries = entriesFor(
      impliedBalances(sale('PAGO')),
      sale('PAGO'),
      withdrawal('ESTORNADO'),
    );
    expect(entries.map((entry) => [entry.kind, entry.amountCents])).toEqual([
      ['correction', 6_050],
      ['correction', -15_050],
    ]);
  });

  it('sum only the two accounts', () => {
    expect(
      sumEntries([
        { account: 'available', amountCents: 5 },
        { account: 'reserved', amountCents: 7 },
        { account: 'available', amountCents: -2 },
        { account: 'fees', amountCents: 11 },
      ]),
    ).toEqual({ available: 3, reserved: 7 });
  });

  const saleState = fc.record({
    resourceType: fc.constant('sale' as const),
    status: fc.constantFrom(...SALE_STATUSES),
    amountCents: fc.integer({ min: 0, max: 10_000_000 }),
    netAmountCents: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
    denied: fc.boolean(),
  });
  const withdrawalState = fc.record({
    resourceType: fc.constant('withdrawal' as const),
    status: fc.constantFrom(...WITHDRAWAL_STATUSES, 'REJECTED'),
    amountCents: fc.integer({ min: 0, max: 10_000_000 }),
    netAmountCents: fc.constant(null),
    denied: fc.boolean(),
  });
  const booked = fc.record({
    available: fc.integer({ min: -1_000_000, max: 1_000_000 }),
    reserved: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  });

  it('always book exactly what the new state implies, from any booked sums', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(booked, fc.option(saleState), saleState),
          fc.tuple(booked, fc.option(withdrawalState), withdrawalState),
        ),
        ([sums, previous, next]) => {
          const entries = entriesFor(sums, previous, next);
          expect(add(sums, sumEntries(entries))).toEqual(impliedBalances(next));
          for (const entry of entries) expect(entry.amountCents).not.toBe(0);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('keep the invariant along any path of either machine', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(saleState, { minLength: 1, maxLength: 12 }),
          fc.array(withdrawalState, { minLength: 1, maxLength: 12 }),
        ),
        (path) => {
          const steps = book(path);
          steps.forEach((step, index) => {
            expect(step.booked).toEqual(impliedBalances(path[index] as RecordState));
          });
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
