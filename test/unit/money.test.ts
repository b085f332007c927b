import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  MoneyError,
  centsFromCentsNumber,
  centsFromCentsString,
  centsFromReaisNumber,
  centsFromReaisString,
  formatBrl,
  reaisNumberFromCents,
  reaisStringFromCents,
} from '../../src/domain/money.js';

function expectMoneyError(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MoneyError);
  expect((thrown as MoneyError).name).toBe('MoneyError');
}

// Values of the wrong JS type, as a careless caller (or JSON) could pass them.
const WRONG_TYPES: unknown[] = [null, undefined, {}, [], true, 10n];

describe('centsFromReaisString', () => {
  it.each([
    ['150.5', 15050],
    ['150.50', 15050],
    ['0.01', 1],
    ['0.1', 10],
    ['0', 0],
    ['0.00', 0],
    ['100000.00', 10_000_000],
    ['007.50', 750],
    ['90071992547409.91', Number.MAX_SAFE_INTEGER],
  ])('%s → %i', (input, cents) => {
    expect(centsFromReaisString(input)).toBe(cents);
  });

  it.each([
    '1e3',
    '-1',
    '+1',
    '150.505',
    '',
    ' 10',
    '10 ',
    '10\n',
    '10,50',
    '.5',
    '10.',
    '１０',
    'NaN',
    'Infinity',
    '0x10',
    '9007199254740993',
    '90071992547409.92',
    '9'.repeat(400),
  ])('rejects %j', (input) => {
    expectMoneyError(() => centsFromReaisString(input));
  });

  it('rejects a non-string', () => {
    for (const input of WRONG_TYPES) expectMoneyError(() => centsFromReaisString(input as string));
  });
});

describe('centsFromCentsString', () => {
  it.each([
    ['15000', 15000],
    ['0', 0],
    ['1', 1],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('%s → %i', (input, cents) => {
    expect(centsFromCentsString(input)).toBe(cents);
  });

  it.each(['150.5', '-1', '1e3', '', ' 10', '10 ', '１０', 'NaN', '9007199254740992'])(
    'rejects %j',
    (input) => {
      expectMoneyError(() => centsFromCentsString(input));
    },
  );

  it('rejects a non-string', () => {
    for (const input of [...WRONG_TYPES, 15000]) {
      expectMoneyError(() => centsFromCentsString(input as string));
    }
  });
});

describe('centsFromCentsNumber', () => {
  it('accepts non-negative safe integers', () => {
    expect(centsFromCentsNumber(15000)).toBe(15000);
    expect(centsFromCentsNumber(0)).toBe(0);
    expect(centsFromCentsNumber(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('maps -0 to 0', () => {
    expect(Object.is(centsFromCentsNumber(-0), 0)).toBe(true);
  });

  it.each([1.5, -1, NaN, Infinity, -Infinity, 2 ** 63, Number.MAX_SAFE_INTEGER + 1])(
    'rejects %s',
    (input) => {
      expectMoneyError(() => centsFromCentsNumber(input));
    },
  );

  it('rejects a non-number', () => {
    for (const input of [...WRONG_TYPES, '15000']) {
      expectMoneyError(() => centsFromCentsNumber(input as number));
    }
  });
});

describe('reaisStringFromCents / reaisNumberFromCents', () => {
  it.each([
    [0, '0.00', 0],
    [1, '0.01', 0.01],
    [10, '0.10', 0.1],
    [15050, '150.50', 150.5],
    [10_000_000, '100000.00', 100000],
  ])('%i → %j and %s', (cents, text, reais) => {
    expect(reaisStringFromCents(cents)).toBe(text);
    expect(reaisNumberFromCents(cents)).toBe(reais);
  });

  it('serialises the cashout amount as the exact decimal', () => {
    expect(JSON.stringify({ amount: reaisNumberFromCents(15050) })).toBe('{"amount":150.5}');
    expect(JSON.stringify({ amount: reaisNumberFromCents(1999) })).toBe('{"amount":19.99}');
  });

  it.each([-1, 1.5, NaN, Infinity, 2 ** 63])('rejects %s', (input) => {
    expectMoneyError(() => reaisStringFromCents(input));
    expectMoneyError(() => reaisNumberFromCents(input));
  });

  it('round-trips every safe non-negative integer through the reais string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeNat(), fc.nat({ max: 1_000_000 })), (c) => {
        const text = reaisStringFromCents(c);
        expect(text).toMatch(/^[0-9]+\.[0-9]{2}$/);
        expect(centsFromReaisString(text)).toBe(c);
        expect(centsFromCentsString(String(c))).toBe(c);
      }),
      { numRuns: 5000 },
    );
    expect(centsFromReaisString(reaisStringFromCents(Number.MAX_SAFE_INTEGER))).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('round-trips every amount up to 1e13 centavos through the reais number', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 1e13 }), fc.nat({ max: 1_000_000 })), (c) => {
        expect(centsFromReaisNumber(reaisNumberFromCents(c))).toBe(c);
      }),
      { numRuns: 5000 },
    );
    for (const c of [0, 1, 99, 100, 1e13 - 1, 1e13]) {
      expect(centsFromReaisNumber(reaisNumberFromCents(c))).toBe(c);
    }
  });
});

describe('centsFromReaisNumber', () => {
  it.each([
    [150.5, 15050],
    [0.01, 1],
    [0.1, 10],
    [19.99, 1999],
    [0, 0],
    [-0, 0],
    [100000, 10_000_000],
  ])('%s → %i', (input, cents) => {
    expect(centsFromReaisNumber(input)).toBe(cents);
  });

  it.each([0.001, 150.505, -1, -0.01, NaN, Infinity, 1e21, 1e-7])('rejects %s', (input) => {
    expectMoneyError(() => centsFromReaisNumber(input));
  });

  it('rejects a non-number', () => {
    for (const input of [...WRONG_TYPES, '150.5']) {
      expectMoneyError(() => centsFromReaisNumber(input as number));
    }
  });
});

describe('formatBrl', () => {
  it.each([
    [123456, 'R$ 1.234,56'],
    [0, 'R$ 0,00'],
    [5, 'R$ 0,05'],
    [100, 'R$ 1,00'],
    [99999, 'R$ 999,99'],
    [100000000, 'R$ 1.000.000,00'],
    [-150, '-R$ 1,50'],
  ])('%i → %j', (cents, text) => {
    expect(formatBrl(cents)).toBe(text);
  });
});

describe('MoneyError', () => {
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(MoneyError);
      return (error as MoneyError).message;
    }
    throw new Error('no MoneyError');
  };

  it('says which amount was refused and why, for each unit', () => {
    expect(messageOf(() => centsFromCentsString('12a'))).toBe(
      'invalid amount "12a": expected a string of centavos (digits only)',
    );
    expect(messageOf(() => centsFromCentsString('9007199254740992'))).toBe(
      'invalid amount "9007199254740992": too large',
    );
    expect(messageOf(() => centsFromCentsNumber(1.5))).toBe(
      'invalid amount 1.5: expected a non-negative integer number of centavos',
    );
    expect(messageOf(() => centsFromReaisString('1e3'))).toBe(
      'invalid amount "1e3": expected a decimal string of reais with at most 2 decimals',
    );
    expect(messageOf(() => centsFromReaisNumber(-1))).toBe(
      'invalid amount -1: expected a non-negative number of reais',
    );
  });

  it('keeps the input and the reason apart, for callers that record them', () => {
    let thrown: unknown;
    try {
      centsFromCentsNumber(-3);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      input: -3,
      reason: 'expected a non-negative integer number of centavos',
    });
  });

  it('quotes a string of up to 40 characters whole, and cuts a longer one', () => {
    const forty = 'x'.repeat(40);
    expect(messageOf(() => centsFromCentsString(forty))).toBe(
      `invalid amount "${forty}": expected a string of centavos (digits only)`,
    );
    expect(messageOf(() => centsFromCentsString(`${forty}yz`))).toBe(
      `invalid amount "${forty}…": expected a string of centavos (digits only)`,
    );
  });

  it('names only the type of a value that is neither a string nor a number', () => {
    expect(messageOf(() => centsFromCentsString(null as unknown as string))).toBe(
      'invalid amount object: expected a string of centavos (digits only)',
    );
    expect(messageOf(() => centsFromCentsNumber('15' as unknown as number))).toBe(
      'invalid amount "15": expected a non-negative integer number of centavos',
    );
    expect(messageOf(() => centsFromReaisNumber(10n as unknown as number))).toBe(
      'invalid amount bigint: expected a non-negative number of reais',
    );
  });
});
