import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reaisStringFromCents } from '../../src/domain/money.js';
import { buildPixBrCode, crc16Ccitt, emvField } from '../../src/sandbox/domain/pixBrCode.js';
import { parseEmvFields } from './support/specSchemas.js';

const charge = {
  merchantKey: '123e4567-e12b-12d1-a456-426655440000',
  merchantName: 'Loja São João',
  merchantCity: 'São Paulo',
  amountCents: 15050,
  txid: 'SBX17',
};

describe('BR Code (PIX copy-and-paste)', () => {
  it('computes CRC16-CCITT (0x1021, init 0xFFFF) on the standard check value', () => {
    expect(crc16Ccitt('123456789')).toBe('29B1');
  });

  it('carries the EMV fields of a PIX charge', () => {
    const code = buildPixBrCode(charge);
    const fields = parseEmvFields(code);
    expect([...fields.keys()]).toEqual([
      '00',
      '26',
      '52',
      '53',
      '54',
      '58',
      '59',
      '60',
      '62',
      '63',
    ]);
    expect(fields.get('00')).toBe('01');
    const account = parseEmvFields(fields.get('26') ?? '');
    expect(account.get('00')).toBe('br.gov.bcb.pix');
    expect(account.get('01')).toBe(charge.merchantKey);
    expect(fields.get('52')).toBe('0000');
    expect(fields.get('53')).toBe('986');
    expect(fields.get('54')).toBe('150.50');
    expect(fields.get('58')).toBe('BR');
    expect(fields.get('59')).toBe('LOJA SAO JOAO');
    expect(fields.get('60')).toBe('SAO PAULO');
    expect(parseEmvFields(fields.get('62') ?? '').get('05')).toBe('SBX17');
  });

  it('ends with a valid CRC over everything up to and including 6304', () => {
    const code = buildPixBrCode(charge);
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toBe(crc16Ccitt(code.slice(0, -4)));
  });

  it('keeps a valid CRC and the exact amount in reais for any amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999_999_999 }),
        fc.integer({ min: 1, max: 10 ** 12 }),
        (cents, id) => {
          const code = buildPixBrCode({ ...charge, amountCents: cents, txid: `SBX${id}` });
          expect(code.slice(-4)).toBe(crc16Ccitt(code.slice(0, -4)));
          expect(parseEmvFields(code).get('54')).toBe(reaisStringFromCents(cents));
        },
      ),
    );
  });

  it('truncates the merchant name to 25 and the city to 15 characters', () => {
    const fields = parseEmvFields(
      buildPixBrCode({ ...charge, merchantName: 'A'.repeat(40), merchantCity: 'B'.repeat(40) }),
    );
    expect(fields.get('59')).toHaveLength(25);
    expect(fields.get('60')).toHaveLength(15);
  });

  it('refuses a txid that is not 1 to 25 alphanumeric characters, and fields over 99 characters', () => {
    expect(() => buildPixBrCode({ ...charge, txid: 'has-dash' })).toThrow(/txid/);
    expect(() => buildPixBrCode({ ...charge, txid: 'X'.repeat(26) })).toThrow(/txid/);
    expect(() => emvField('26', 'x'.repeat(100))).toThrow(/99/);
  });
});
