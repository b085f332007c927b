import { describe, expect, it } from 'vitest';
import { boletoDueDate, endOfBusinessDaysAfter } from '../../src/domain/boletoDueDate.js';
import { buildBoletoLine } from '../../src/sandbox/domain/boletoCode.js';
import { barcodeOf } from '../support/boleto.js';

const DAY_MS = 86_400_000;

function lineDue(day: string): string {
  return buildBoletoLine({ saleId: 5, amountCents: 1000, dueDate: new Date(`${day}T00:00:00Z`) });
}

/** The line as banks print it: "AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE". */
function printed(line: string): string {
  const at = (from: number, to: number): string => line.slice(from, to);
  return `${at(0, 5)}.${at(5, 10)} ${at(10, 15)}.${at(15, 21)} ${at(21, 26)}.${at(26, 32)} ${at(32, 33)} ${at(33, 47)}`;
}

function withFactor(line: string, factor: string): string {
  return `${line.slice(0, 33)}${factor}${line.slice(37)}`;
}

/** A code with a letter put first or last, where only digits belong. */
const LETTER_AT: readonly [string, (code: string) => string][] = [
  ['first', (code) => `A${code.slice(1)}`],
  ['last', (code) => `${code.slice(0, -1)}A`],
];

describe('boletoDueDate', () => {
  it.each(['2024-12-20', '2025-02-21', '2025-02-22', '2026-07-15', '2031-01-02'])(
    'reads the due date %s back from the line (across the 2025 factor restart)',
    (day) => {
      const due = new Date(`${day}T00:00:00Z`);
      expect(boletoDueDate(lineDue(day), new Date(due.getTime() - 3 * DAY_MS))).toEqual(due);
    },
  );

  it('reads the due date from the 44-digit barcode', () => {
    const barcode = barcodeOf(lineDue('2026-07-15'));
    expect(barcode).toMatch(/^\d{44}$/);
    expect(boletoDueDate(barcode, new Date('2026-07-01T00:00:00Z'))).toEqual(
      new Date('2026-07-15T00:00:00Z'),
    );
  });

  it('reads a line printed with dots and spaces', () => {
    expect(boletoDueDate(printed(lineDue('2026-07-15')), new Date('2026-07-01T00:00:00Z'))).toEqual(
      new Date('2026-07-15T00:00:00Z'),
    );
  });

  it('names a past due date for a code read after it, not the next cycle’s', () => {
    expect(boletoDueDate(lineDue('2026-07-15'), new Date('2026-07-20T00:00:00Z'))).toEqual(
      new Date('2026-07-15T00:00:00Z'),
    );
  });

  it('reads the earlier date when the sale lies exactly half a factor cycle from two', () => {
    // Factor 5000 names 2011-06-16 and, 9000 days later, 2036-02-05; 2023-10-11 is 4500 from each.
    const line = lineDue('2011-06-16');
    expect(line.slice(33, 37)).toBe('5000');
    expect(boletoDueDate(line, new Date('2023-10-11T00:00:00Z'))).toEqual(
      new Date('2011-06-16T00:00:00Z'),
    );
  });

  it.each(['0000', '0999'])(
    'names no date for the factor %s (none below 1000 since 2025)',
    (factor) => {
      const line = withFactor(lineDue('2026-07-15'), factor);
      expect(line).toMatch(/^\d{47}$/);
      expect(boletoDueDate(line, new Date('2026-07-01T00:00:00Z'))).toBeNull();
    },
  );

  it('names no date for a code that is not a boleto line', () => {
    expect(boletoDueDate('not a boleto', new Date())).toBeNull();
  });

  it.each(LETTER_AT)(
    'a line with a letter as its %s character is no boleto line',
    (_, withLetter) => {
      const line = withLetter(lineDue('2026-07-15'));
      expect(line).toHaveLength(47);
      expect(boletoDueDate(line, new Date('2026-07-01T00:00:00Z'))).toBeNull();
    },
  );

  it.each(LETTER_AT)(
    'a barcode with a letter as its %s character is no barcode',
    (_, withLetter) => {
      const barcode = withLetter(barcodeOf(lineDue('2026-07-15')));
      expect(barcode).toHaveLength(44);
      expect(boletoDueDate(barcode, new Date('2026-07-01T00:00:00Z'))).toBeNull();
    },
  );

  it('a barcode with one digit too many is neither barcode nor line', () => {
    const code = `${barcodeOf(lineDue('2026-07-15'))}0`;
    expect(code).toMatch(/^\d{45}$/);
    expect(boletoDueDate(code, new Date('2026-07-01T00:00:00Z'))).toBeNull();
  });
});

describe('endOfBusinessDaysAfter', () => {
  it('skips weekends and ends the day in São Paulo (UTC−03:00)', () => {
    expect(endOfBusinessDaysAfter(new Date('2026-01-30T00:00:00Z'), 3)).toEqual(
      new Date('2026-02-05T02:59:59.999Z'),
    );
    expect(endOfBusinessDaysAfter(new Date('2026-01-26T00:00:00Z'), 3)).toEqual(
      new Date('2026-01-30T02:59:59.999Z'),
    );
  });
});
