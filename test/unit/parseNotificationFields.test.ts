import { describe, expect, it } from 'vitest';
import { parseNotification, resourceKindOf } from '../../src/notifications/parseNotification.js';
import { postbackBody, webhookSaleBody, withdrawalBody } from '../support/fixtures.js';

// Every field of a notification, in paymirror's units, and every reason it is quarantined.

function notice(channel: 'postback' | 'webhook', body: Record<string, unknown>): unknown {
  const result = parseNotification(channel, body);
  if (!result.ok) throw new Error(`quarantined: ${result.reason}`);
  return result.notice;
}

function reason(channel: 'postback' | 'webhook', body: unknown): string {
  const result = parseNotification(channel, body as Record<string, unknown>);
  if (result.ok) throw new Error('parsed');
  return result.reason;
}

describe('resourceKindOf', () => {
  it('takes a webhook of type WITHDRAWAL for a withdrawal and everything else for a sale', () => {
    expect(resourceKindOf('webhook', { type: 'WITHDRAWAL' })).toBe('withdrawal');
    expect(resourceKindOf('webhook', { type: 'TRANSACTION' })).toBe('sale');
    expect(resourceKindOf('webhook', {})).toBe('sale');
    expect(resourceKindOf('postback', { type: 'WITHDRAWAL' })).toBe('sale');
  });
});

describe('a sale notification', () => {
  it('carries every field of a postback, amounts in centavos', () => {
    const body = postbackBody({
      id: 7,
      status: 'PAGO',
      paymentMethod: 'BOLETO',
      amount: '15050',
      boletoCode: '23790.00000',
      pixKey: 'pix-code',
      shipping: '{"city":"Recife"}',
      saleItems: [
        { id: 1, saleId: 7, title: 'Camiseta', unitPrice: '5025', quantity: 2, tangible: true },
        { id: 2, saleId: 7, title: 'Curso', unitPrice: '5000', quantity: 1, tangible: false },
      ],
    });
    expect(notice('postback', body)).toStrictEqual({
      kind: 'sale',
      id: 7,
      status: 'PAGO',
      paymentMethod: 'BOLETO',
      amountCents: 15_050,
      createdAt: new Date('2026-11-20T10:00:00.000Z'),
      customerName: 'Maria da Silva',
      customerEmail: 'maria@example.com',
      customerDocument: '12345678909',
      customerPhone: '11999998888',
      pixCode: 'pix-code',
      boletoCode: '23790.00000',
      shipping: { city: 'Recife' },
      items: [
        { itemId: 1, title: 'Camiseta', unitPriceCents: 5_025, quantity: 2, tangible: true },
        { itemId: 2, title: 'Curso', unitPriceCents: 5_000, quantity: 1, tangible: false },
      ],
      feeCents: null,
      externalTransactionId: 'ext-7',
    });
  });

  it('gives null for what a notification leaves out, and a webhook’s fee in centavos', () => {
    const body = webhookSaleBody({ id: 8, status: 'PENDENTE', fee: 0 });
    for (const field of [
      'customerName',
      'customerEmail',
      'customerDocument',
      'customerPhone',
      'pixKey',
      'boletoCode',
      'shipping',
    ]) {
      delete body[field];
    }
    expect(notice('webhook', body)).toMatchObject({
      customerName: null,
      customerEmail: null,
      customerDocument: null,
      customerPhone: null,
      pixCode: null,
      boletoCode: null,
      shipping: undefined,
      feeCents: 0,
      externalTransactionId: null,
    });
  });

  it('keeps shipping as it came unless it is a JSON string jsonb can hold', () => {
    const shippingOf = (shipping: unknown) =>
      (
        notice('postback', postbackBody({ id: 9, status: 'PAGO', shipping })) as {
          shipping: unknown;
        }
      ).shipping;
    expect(shippingOf(null)).toBeNull();
    expect(shippingOf({ city: 'Recife' })).toStrictEqual({ city: 'Recife' });
    expect(shippingOf('Rua A, 10')).toBe('Rua A, 10');
    expect(shippingOf('{"street":"\\u0000"}')).toBe('{"street":"\\u0000"}');
    expect(shippingOf('[1,2]')).toStrictEqual([1, 2]);
  });
});

describe('a withdrawal notification', () => {
  it('carries every field, the amount in centavos and the instants as Dates', () => {
    const body = withdrawalBody({
      id: 31,
      status: 'COMPLETED',
      amount: '150.5',
      updatedAt: '2026-11-20T10:05:00.000Z',
      processedAt: '2026-11-20T10:04:00.000Z',
    });
    expect(notice('webhook', body)).toStrictEqual({
      kind: 'withdrawal',
      id: 31,
      status: 'COMPLETED',
      amountCents: 15_050,
      pixKey: '12345678909',
      pixKeyType: 'CPF',
      externalId: 'bank-31',
      createdAt: new Date('2026-11-20T09:00:00.000Z'),
      updatedAt: new Date('2026-11-20T10:05:00.000Z'),
      processedAt: new Date('2026-11-20T10:04:00.000Z'),
    });
  });

  it('gives null for what it leaves out', () => {
    const body = withdrawalBody({ id: 32, status: 'PENDING', updatedAt: '2026-11-20T10:05:00Z' });
    for (const field of ['pixKey', 'pixKeyType', 'externalId', 'createdAt', 'processedAt']) {
      delete body[field];
    }
    expect(notice('webhook', body)).toMatchObject({
      pixKey: null,
      pixKeyType: null,
      externalId: null,
      createdAt: null,
      processedAt: null,
    });
  });

  it('is quarantined with an unknown status, named', () => {
    const body = withdrawalBody({ id: 33, status: 'DONE', updatedAt: '2026-11-20T10:05:00Z' });
    expect(reason('webhook', body)).toBe('unknown withdrawal status "DONE"');
  });

  it('is quarantined with an amount that is no reais, the amount named', () => {
    const body = withdrawalBody({
      id: 34,
      status: 'COMPLETED',
      amount: '1.005',
      updatedAt: '2026-11-20T10:05:00Z',
    });
    expect(reason('webhook', body)).toBe(
      'invalid amount "1.005": expected a decimal string of reais with at most 2 decimals',
    );
  });
});

describe('the reason a notification is quarantined', () => {
  it('names a sale’s unknown status or payment method', () => {
    expect(reason('postback', postbackBody({ id: 1, status: 'PAGOU' }))).toBe(
      'unknown sale status "PAGOU"',
    );
    expect(
      reason('postback', postbackBody({ id: 1, status: 'PAGO', paymentMethod: 'CHEQUE' })),
    ).toBe('unknown payment method "CHEQUE"');
  });

  it('names each field by its dotted path, issues apart by "; "', () => {
    const body = postbackBody({
      id: 1,
      status: 'PAGO',
      customerName: 5,
      saleItems: [{ id: 1, saleId: 1, title: 't', unitPrice: 100, quantity: 1, tangible: true }],
    });
    expect(reason('postback', body)).toMatch(/^customerName: [^;]+; saleItems\.0\.unitPrice: /);
  });

  it('names at most five issues', () => {
    const body = {
      ...postbackBody({ id: 1, status: 'PAGO' }),
      customerName: 1,
      customerEmail: 2,
      customerDocument: 3,
      customerPhone: 4,
      pixKey: 5,
      boletoCode: 6,
      externalTransactionId: 7,
    };
    expect(reason('postback', body).split('; ')).toHaveLength(5);
  });

  it('says "body" of what is wrong with the body as a whole', () => {
    expect(reason('postback', null)).toMatch(/^body: /);
  });

  it('is the money error of an amount that is no count of centavos', () => {
    expect(reason('postback', postbackBody({ id: 1, status: 'PAGO', amount: '150.50' }))).toBe(
      'invalid amount "150.50": expected a string of centavos (digits only)',
    );
    expect(reason('webhook', webhookSaleBody({ id: 1, status: 'PAGO', fee: -1 }))).toBe(
      'invalid amount -1: expected a non-negative integer number of centavos',
    );
  });
});
