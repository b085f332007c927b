/**
 * PIX "copia e cola" codes: the BR Code, an EMV QR Code Merchant Presented Mode payload.
 * Each field is ID (2 digits) + length (2 digits) + value; field 63 is a CRC16-CCITT
 * (polynomial 0x1021, initial value 0xFFFF) over the whole payload up to and including
 * "6304", in four uppercase hex digits.
 */
import { reaisStringFromCents } from '../../domain/money.js';
import type { Cents } from '../../domain/money.js';

const PIX_GUI = 'br.gov.bcb.pix';
const BRL_CURRENCY_CODE = '986';
const MAX_NAME_LENGTH = 25;
const MAX_CITY_LENGTH = 15;
const MAX_TXID_LENGTH = 25;

class BrCodeError extends Error {
  override readonly name = 'BrCodeError';
}

export function emvField(id: string, value: string): string {
  if (!/^[0-9]{2}$/.test(id)) throw new BrCodeError(`EMV field id must be two digits: ${id}`);
  if (value.length > 99) throw new BrCodeError(`EMV field ${id} longer than 99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

export function crc16Ccitt(payload: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(payload, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** BR Code text fields allow plain ASCII only: strip accents, keep printable characters. */
function asciiField(value: string, maxLength: number): string {
  const ascii = value
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .toUpperCase();
  return ascii.slice(0, maxLength);
}

export interface PixChargeInput {
  /** The receiving PIX key of the merchant (a random EVP key in the sandbox). */
  readonly merchantKey: string;
  readonly merchantName: string;
  readonly merchantCity: string;
  readonly amountCents: Cents;
  /** Alphanumeric transaction id, at most 25 characters. */
  readonly txid: string;
}

export function buildPixBrCode(input: PixChargeInput): string {
  if (!/^[A-Za-z0-9]{1,25}$/.test(input.txid)) {
    throw new BrCodeError(`txid must be 1 to ${MAX_TXID_LENGTH} alphanumeric characters`);
  }
  const merchantAccount = emvField('00', PIX_GUI) + emvField('01', input.merchantKey);
  const withoutCrc =
    emvField('00', '01') +
    emvField('26', merchantAccount) +
    emvField('52', '0000') +
    emvField('53', BRL_CURRENCY_CODE) +
    emvField('54', reaisStringFromCents(input.amountCents)) +
    emvField('58', 'BR') +
    emvField('59', asciiField(input.merchantName, MAX_NAME_LENGTH)) +
    emvField('60', asciiField(input.merchantCity, MAX_CITY_LENGTH)) +
    emvField('62', emvField('05', input.txid)) +
    '6304';
  return withoutCrc + crc16Ccitt(withoutCrc);
}
