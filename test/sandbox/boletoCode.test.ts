import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildBoletoLine,
  dueDateFactor,
  mod10,
  mod11,
} from '../../src/sandbox/domain/boletoCode.js';
import { barcodeOf } from '../support/boleto.js';

describe('boleto linha digitável', () => {
  const dueDate = new Date('2026-03-10T12:00:00Z');

  it('has 47 digits with valid module-10 field digits and a valid module-11 general digit', () => {
    const line = buildBoletoLine({ saleId: 123, amountCents: 15050, dueDate });
    expect(line).toMatch(/^[0-9]{47}$/);
    expect(Number(line[9])).toBe(mod10(line.slice(0, 9)));
    expect(Number(line[20])).toBe(mod10(line.slice(10, 20)));
    expect(Number(line[31])).toBe(mod10(line.slice(21, 31)));
    const barcode = barcodeOf(line);
    expect(Number(barcode[4])).toBe(mod11(barcode.slice(0, 4) + barcode.slice(5)));
  });

  it('carries the amount in centavos and the due date factor', () => {
    const line = buildBoletoLine({ saleId: 1, amountCents: 15050, dueDate });
    expect(line.slice(37)).toBe('0000015050');
    expect(line.slice(33, 37)).toBe(dueDateFactor(dueDate));
  });

  it('uses the factor that restarted at 1000 on 2025-02-22', () => {
    expect(dueDateFactor(new Date('2025-02-21T12:00:00Z'))).toBe('9999');
    expect(dueDateFactor(new Date('2025-02-22T12:00:00Z'))).toBe('1000');
    expect(dueDateFactor(new Date('2000-07-03T12:00:00Z'))).toBe('1000');
  });

  it('stays valid for any sale id and amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 15 }),
        fc.integer({ min: 1, max: 9_999_999_999 }),
        (saleId, cents) => {
          const line = buildBoletoLine({ saleId, amountCents: cents, dueDate });
          const barcode = barcodeOf(line);
          expect(line).toHaveLength(47);
          expect(Number(barcode[4])).toBe(mod11(barcode.slice(0, 4) + barcode.slice(5)));
          expect(Number(line.slice(37))).toBe(cents);
        },
      ),
    );
  });
});
