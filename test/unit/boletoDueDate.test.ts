import { describe, expect, it } from 'vitest';
import { boletoDueDate, endOfBusinessDaysAfter } from '../../src/domain/boletoDueDate.js';
import { buildBoletoLine } from '../../src/sandbox/domain/boletoCode.js';

describe('boletoDueDate', () => {
  it.each(['2024-12-20', '2025-02-21', '2025-02-22', '2026-07-15', '2031-01-02'])(
    'reads the due date %s back from the line (across the 2025 factor restart)',
    (day) => {
      const due = new Date(`${day}T00:00:00Z`);
      const line = buildBoletoLine({ saleId: 5, amountCents: 1000, dueDate: due });
      expect(boletoDueDate(line, new Date(due.getTime() - 3 * 86_400_000))).toEqual(due);
    },
  );

  it('names no date for a factor of zero or a code that is not a boleto line', () => {
    const line = buildBoletoLine({ saleId: 5, amountCents: 1000, dueDate: new Date(0) });
    expect(boletoDueDate(`${line.slice(0, 33)}0000${line.slice(37)}`, new Date())).toBeNull();
    expect(boletoDueDate('not a boleto', new Date())).toBeNull();
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
