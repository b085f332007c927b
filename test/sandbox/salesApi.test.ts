/**
 * POST /api/sales (docs/gateway.md 2.3, 4.4) and GET /api/transactions/{id} (2.2, 4.3).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crc16Ccitt } from '../../src/sandbox/domain/pixBrCode.js';
import { saleBody, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import {
  errorShapeB,
  errorShapeC,
  parseEmvFields,
  saleCreatedSchema,
  transactionReadSchema,
} from './support/specSchemas.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(() => harness.close());

async function read(id: number) {
  const answer = await harness.call('GET', `/api/transactions/${id}`);
  expect(answer.status).toBe(200);
  return transactionReadSchema.parse(answer.body);
}

describe('POST /api/sales', () => {
  it('creates a PIX sale: amount a string of centavos, status PENDENTE, a BR Code and a PNG QR image', async () => {
    const answer = await harness.call('POST', '/api/sales', { body: saleBody('PIX') });
    expect(answer.status).toBe(201);
    const { sale } = saleCreatedSchema.parse(answer.body);
    expect(sale.amount).toBe('15050');
    expect(sale.status).toBe('PENDENTE');
    expect(sale.paymentMethod).toBe('PIX');
    expect(sale.customer).toEqual({
      name: 'Maria Silva',
      email: 'maria@example.com',
      document: '12345678909',
      phone: '11987654321',
    });
    expect(sale.payment.method).toBe('PIX');
    expect(sale.payment.installments).toBeNull();
    expect(sale.shipping).toBeNull();

    const pix = sale.payment.pix;
    expect(pix).toBeDefined();
    const key = pix?.key ?? '';
    expect(key.slice(-4)).toBe(crc16Ccitt(key.slice(0, -4)));
    expect(parseEmvFields(key).get('54')).toBe('150.50');
    expect(parseEmvFields(key).get('53')).toBe('986');
    const png = Buffer.from(
      (pix?.qrCodeBase64 ?? '').replace('data:image/png;base64,', ''),
      'base64',
    );
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(Date.parse(pix?.expiresAt ?? '')).toBeGreaterThan(Date.parse(sale.createdAt));
  });

  it('creates a credit card sale with installments and no pix object, then hands it to the processor', async () => {
    const { id, answer } = await harness.createSale(saleBody('CREDIT_CARD'));
    const { sale } = saleCreatedSchema.parse(answer.body);
    expect(sale.status).toBe('PENDENTE');
    expect(sale.payment).toEqual({ method: 'CREDIT_CARD', installments: 3 });

    const transaction = await read(id);
    expect(transaction.status).toBe('EM_PROCESSAMENTO');
    expect(transaction.installments).toBe(3);
    expect(transaction.cardLastFour).toBe('1111');
    expect(transaction.cardBrand).toBe('VISA');
    expect(transaction.pixKey).toBeNull();
    expect(transaction.boletoCode).toBeNull();
  });

  it('creates debit card and boleto sales with null installments', async () => {
    for (const method of ['DEBIT_CARD', 'BOLETO']) {
      const { answer } = await harness.createSale(saleBody(method));
      const { sale } = saleCreatedSchema.parse(answer.body);
      expect(sale.payment).toEqual({ method, installments: null });
    }
  });

  it('encodes shipping as a JSON string for physical products', async () => {
    const shipping = {
      street: 'Rua A',
      number: '10',
      city: 'Curitiba',
      state: 'PR',
      zipCode: '80000000',
    };
    const body = saleBody('PIX', {
      items: [{ title: 'Livro', unitPrice: 15050, quantity: 1, tangible: true }],
      shipping,
    });
    const { id, answer } = await harness.createSale(body);
    const { sale } = saleCreatedSchema.parse(answer.body);
    expect(typeof sale.shipping).toBe('string');
    expect(JSON.parse(sale.shipping ?? 'null')).toEqual(shipping);
    expect((await read(id)).shipping).toEqual(shipping);
  });

  it('leaves optional customer fields out when they were not given', async () => {
    const { answer } = await harness.createSale(
      saleBody('PIX', { customer: { name: 'Ana', email: 'ana@example.com' } }),
    );
    expect(saleCreatedSchema.parse(answer.body).sale.customer).toEqual({
      name: 'Ana',
      email: 'ana@example.com',
    });
  });

  it.each([
    ['amount as a string', { amount: '15050' }],
    ['amount with decimals', { amount: 150.5 }],
    ['amount zero', { amount: 0 }],
    ['unknown payment method', { paymentMethod: 'CHEQUE' }],
    ['no items', { items: [] }],
    ['customer without email', { customer: { name: 'Ana' } }],
    [
      'phone with symbols',
      { customer: { name: 'Ana', email: 'ana@example.com', phone: '(11) 98765-4321' } },
    ],
    ['installments on PIX', { installments: 2 }],
    ['card on PIX', { card: { lastFour: '1234', brand: 'VISA' } }],
    ['shipping for digital items', { shipping: { city: 'Recife' } }],
    ['postbackUrl that is not http(s)', { postbackUrl: 'ftp://example.com/x' }],
  ])('answers 400 shape B for %s', async (_case, overrides) => {
    const answer = await harness.call('POST', '/api/sales', { body: saleBody('PIX', overrides) });
    expect(answer.status).toBe(400);
    errorShapeB.parse(answer.body);
  });

  it('answers 400 shape B for a body that is not JSON', async () => {
    const answer = await harness.call('POST', '/api/sales', { rawBody: '{"amount":' });
    expect(answer.status).toBe(400);
    errorShapeB.parse(answer.body);
  });

  it.each(['missing', 'wrong', 'public-only', 'swapped'] as const)(
    'answers 401 shape C UNAUTHORIZED with keys %s',
    async (keys) => {
      const answer = await harness.call('POST', '/api/sales', { body: saleBody('PIX'), keys });
      expect(answer.status).toBe(401);
      expect(errorShapeC.parse(answer.body).error.code).toBe('UNAUTHORIZED');
      expect(harness.sandbox.state.sales.size).toBe(0);
    },
  );

  it('answers 403 shape C FORBIDDEN when the account may not create sales', async () => {
    await harness.control('/restrictions', { salesForbidden: true });
    const answer = await harness.call('POST', '/api/sales', { body: saleBody('PIX') });
    expect(answer.status).toBe(403);
    expect(errorShapeC.parse(answer.body).error.code).toBe('FORBIDDEN');
  });

  it('answers 500 shape B under the internalError fault', async () => {
    await harness.control('/faults', { internalError: 1 });
    const answer = await harness.call('POST', '/api/sales', { body: saleBody('PIX') });
    expect(answer.status).toBe(500);
    errorShapeB.parse(answer.body);
  });
});

describe('GET /api/transactions/{id} read form', () => {
  it('answers numbers of centavos, the fee split, and the customer and items', async () => {
    const { id, answer } = await harness.createSale(saleBody('PIX'));
    const created = saleCreatedSchema.parse(answer.body).sale;
    const transaction = await read(id);
    expect(transaction).toMatchObject({
      id,
      status: 'PENDENTE',
      amount: 15050,
      netAmount: 14899,
      systemFee: 151,
      reserveAmount: 0,
      paymentMethod: 'PIX',
      date: created.createdAt,
      completedAt: null,
      customer: created.customer,
      pixKey: created.payment.pix?.key,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
    });
    expect(transaction.items).toEqual([
      {
        id: expect.any(Number),
        title: 'Curso online',
        unitPrice: 10000,
        quantity: 1,
        tangible: false,
      },
      { id: expect.any(Number), title: 'Apostila', unitPrice: 2525, quantity: 2, tangible: false },
    ]);
    expect(typeof transaction.externalTransactionId).toBe('string');
    expect(transaction).not.toHaveProperty('installments');
    expect(transaction).not.toHaveProperty('shipping');
  });

  it('sets completedAt when the sale is paid', async () => {
    const { id } = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(id, 'PAGO');
    const transaction = await read(id);
    expect(transaction.status).toBe('PAGO');
    expect(transaction.completedAt).toEqual(expect.any(String));
  });

  it('carries a 47-digit boleto code for boleto sales only', async () => {
    const { id } = await harness.createSale(saleBody('BOLETO'));
    const transaction = await read(id);
    expect(transaction.boletoCode).toMatch(/^[0-9]{47}$/);
    expect(transaction.pixKey).toBeNull();
    expect(transaction.cardLastFour).toBeNull();
  });

  it('keeps only the last four digits of a card', async () => {
    const { id } = await harness.createSale(saleBody('DEBIT_CARD'));
    const transaction = await read(id);
    expect(transaction).toMatchObject({
      cardLastFour: '5678',
      cardBrand: 'MASTERCARD',
      paymentMethod: 'DEBIT_CARD',
    });
    expect(transaction).not.toHaveProperty('installments');
  });
});
