import { describe, expect, it } from 'vitest';
import {
  WireFieldError,
  createdSaleFromWire,
  parseShipping,
  transactionFromWire,
  withdrawalFromWire,
} from '../../src/gateway/toDomain.js';
import type {
  CreatedSaleWire,
  TransactionWire,
  WithdrawalWire,
} from '../../src/gateway/wireSchemas.js';

const CREATED = '2026-03-01T12:00:00.000Z';
const LATER = '2026-03-01T12:05:00.000Z';

function withdrawalWire(overrides: Partial<WithdrawalWire> = {}): WithdrawalWire {
  return {
    id: 31,
    amount: '150.5',
    netAmount: '146.05',
    pixKey: 'ana@x.com',
    pixKeyType: 'EMAIL',
    status: 'COMPLETED',
    createdAt: CREATED,
    updatedAt: LATER,
    fees: { fixed: '2', variable: '2.45', total: '4.45' },
    ...overrides,
  };
}

function transactionWire(overrides: Partial<TransactionWire> = {}): TransactionWire {
  return {
    id: 7,
    status: 'PAGO',
    amount: 15_050,
    netAmount: 14_000,
    systemFee: 1_050,
    reserveAmount: 300,
    paymentMethod: 'PIX',
    date: CREATED,
    completedAt: LATER,
    customer: { name: 'Ana', email: 'ana@x.com', document: '123', phone: '+55' },
    items: [
      { id: 1, title: 'Camiseta', unitPrice: 5_025, quantity: 2, tangible: true },
      { id: 2, title: 'Curso', unitPrice: 5_000, quantity: 1, tangible: false },
    ],
    pixKey: 'pix-code',
    cardLastFour: '4242',
    cardBrand: 'visa',
    boletoCode: '2379',
    externalTransactionId: 'ext-7',
    installments: 3,
    shipping: { city: 'Recife' },
    ...overrides,
  };
}

function createdWire(overrides: Partial<CreatedSaleWire['sale']> = {}): CreatedSaleWire {
  return {
    message: 'ok',
    sale: {
      id: 9,
      amount: '15050',
      status: 'PENDENTE',
      paymentMethod: 'PIX',
      customer: { name: 'Ana', email: 'ana@x.com', document: '123', phone: '+55' },
      payment: {
        method: 'PIX',
        installments: 1,
        pix: { key: 'pix-code', qrCodeBase64: 'data:image/png;base64,AA', expiresAt: LATER },
      },
      shipping: '{"city":"Recife"}',
      createdAt: CREATED,
      ...overrides,
    },
  };
}

function wireFieldError(run: () => unknown): WireFieldError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WireFieldError);
    return error as WireFieldError;
  }
  throw new Error('expected a WireFieldError');
}

describe('WireFieldError', () => {
  it('names the field and says why', () => {
    const error = new WireFieldError('fees.total', 'too large');
    expect(error.name).toBe('WireFieldError');
    expect(error.field).toBe('fees.total');
    expect(error.message).toBe('fees.total: too large');
  });
});

describe('withdrawalFromWire', () => {
  it('turns reais strings into centavos and ISO strings into instants', () => {
    expect(withdrawalFromWire(withdrawalWire())).toStrictEqual({
      id: 31,
      status: 'COMPLETED',
      amountCents: 15_050,
      netAmountCents: 14_605,
      feeFixedCents: 200,
      feeVariableCents: 245,
      feeTotalCents: 445,
      pixKey: 'ana@x.com',
      pixKeyType: 'EMAIL',
      createdAt: new Date(CREATED),
      updatedAt: new Date(LATER),
    });
  });

  it('has no update instant when the gateway gives none', () => {
    expect(withdrawalFromWire(withdrawalWire({ updatedAt: null })).updatedAt).toBeNull();
    expect(withdrawalFromWire(withdrawalWire({ updatedAt: undefined })).updatedAt).toBeNull();
  });

  it.each([
    ['amount', { amount: '1.005' }],
    ['netAmount', { netAmount: '-1' }],
    ['fees.fixed', { fees: { fixed: '1e2', variable: '0', total: '0' } }],
    ['fees.variable', { fees: { fixed: '0', variable: '0,5', total: '0' } }],
    ['fees.total', { fees: { fixed: '0', variable: '0', total: '' } }],
  ] as const)('names %s when its amount cannot be centavos', (field, overrides) => {
    const error = wireFieldError(() => withdrawalFromWire(withdrawalWire(overrides)));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(new RegExp(`^${field}: invalid amount .*at most 2 decimals`));
  });
});

describe('transactionFromWire', () => {
  it('keeps the read form’s numbers of centavos and converts everything else', () => {
    expect(transactionFromWire(transactionWire())).toStrictEqual({
      id: 7,
      status: 'PAGO',
      paymentMethod: 'PIX',
      amountCents: 15_050,
      netAmountCents: 14_000,
      systemFeeCents: 1_050,
      reserveAmountCents: 300,
      createdAt: new Date(CREATED),
      completedAt: new Date(LATER),
      customerName: 'Ana',
      customerEmail: 'ana@x.com',
      customerDocument: '123',
      customerPhone: '+55',
      items: [
        { itemId: 1, title: 'Camiseta', unitPriceCents: 5_025, quantity: 2, tangible: true },
        { itemId: 2, title: 'Curso', unitPriceCents: 5_000, quantity: 1, tangible: false },
      ],
      pixCode: 'pix-code',
      cardLastFour: '4242',
      cardBrand: 'visa',
      boletoCode: '2379',
      externalTransactionId: 'ext-7',
      installments: 3,
      shipping: { city: 'Recife' },
    });
  });

  it('gives null for every optional field the gateway leaves out or sends as null', () => {
    const bare: TransactionWire = {
      id: 7,
      status: 'PENDENTE',
      amount: 0,
      paymentMethod: 'BOLETO',
      date: CREATED,
      items: [],
    };
    const absent = {
      netAmountCents: null,
      systemFeeCents: null,
      reserveAmountCents: null,
      completedAt: null,
      customerName: null,
      customerEmail: null,
      customerDocument: null,
      customerPhone: null,
      pixCode: null,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      externalTransactionId: null,
      installments: null,
      shipping: null,
    };
    expect(transactionFromWire(bare)).toStrictEqual({
      id: 7,
      status: 'PENDENTE',
      paymentMethod: 'BOLETO',
      amountCents: 0,
      createdAt: new Date(CREATED),
      items: [],
      ...absent,
    });
    const nulls = transactionFromWire({
      ...bare,
      netAmount: null,
      systemFee: null,
      reserveAmount: null,
      completedAt: null,
      customer: null,
      pixKey: null,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      externalTransactionId: null,
      installments: null,
      shipping: null,
    });
    expect(nulls).toMatchObject(absent);
    const emptyCustomer = transactionFromWire({ ...bare, customer: {} });
    expect(emptyCustomer).toMatchObject({
      customerName: null,
      customerEmail: null,
      customerDocument: null,
      customerPhone: null,
    });
  });

  it('keeps a zero fee and a zero reserve as zero, not as absent', () => {
    const read = transactionFromWire(
      transactionWire({ netAmount: 0, systemFee: 0, reserveAmount: 0, installments: 0 }),
    );
    expect(read).toMatchObject({
      netAmountCents: 0,
      systemFeeCents: 0,
      reserveAmountCents: 0,
      installments: 0,
    });
  });

  it.each([
    ['amount', { amount: 150.5 }],
    ['netAmount', { netAmount: -1 }],
    ['systemFee', { systemFee: 0.5 }],
    ['reserveAmount', { reserveAmount: Number.MAX_SAFE_INTEGER + 2 }],
  ] as const)('names %s when its number is no count of centavos', (field, overrides) => {
    const error = wireFieldError(() => transactionFromWire(transactionWire(overrides)));
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: invalid amount`)).toBe(true);
  });

  it('names the item whose unit price is no count of centavos', () => {
    const wire = transactionWire();
    const items = [wire.items[0]!, { ...wire.items[1]!, unitPrice: 10.25 }];
    const error = wireFieldError(() => transactionFromWire({ ...wire, items }));
    expect(error.field).toBe('items.1.unitPrice');
    expect(error.message).toMatch(/^items\.1\.unitPrice: invalid amount 10\.25/);
  });
});

describe('createdSaleFromWire', () => {
  it('turns the create answer’s string of centavos, dates and JSON shipping into the sale', () => {
    expect(createdSaleFromWire(createdWire())).toStrictEqual({
      id: 9,
      status: 'PENDENTE',
      paymentMethod: 'PIX',
      amountCents: 15_050,
      createdAt: new Date(CREATED),
      customerName: 'Ana',
      customerEmail: 'ana@x.com',
      customerDocument: '123',
      customerPhone: '+55',
      installments: 1,
      pixCode: 'pix-code',
      pixQrCodeDataUri: 'data:image/png;base64,AA',
      pixExpiresAt: new Date(LATER),
      shipping: { city: 'Recife' },
    });
  });

  it('gives null for what the answer leaves out', () => {
    const sale = createdSaleFromWire(
      createdWire({
        customer: { name: 'Ana', email: 'ana@x.com' },
        payment: { method: 'BOLETO' },
        shipping: undefined,
      }),
    );
    expect(sale).toMatchObject({
      customerDocument: null,
      customerPhone: null,
      installments: null,
      pixCode: null,
      pixQrCodeDataUri: null,
      pixExpiresAt: null,
      shipping: null,
    });
    const emptyPix = createdSaleFromWire(
      createdWire({ payment: { method: 'PIX', installments: 0, pix: {} } }),
    );
    expect(emptyPix).toMatchObject({
      installments: 0,
      pixCode: null,
      pixQrCodeDataUri: null,
      pixExpiresAt: null,
    });
    const nullPix = createdSaleFromWire(createdWire({ payment: { method: 'PIX', pix: null } }));
    expect(nullPix).toMatchObject({ pixCode: null, pixQrCodeDataUri: null, pixExpiresAt: null });
  });

  it('names sale.amount when it is not a string of centavos', () => {
    const error = wireFieldError(() => createdSaleFromWire(createdWire({ amount: '150.50' })));
    expect(error.field).toBe('sale.amount');
    expect(error.message).toMatch(/^sale\.amount: invalid amount "150\.50": expected a string/);
  });
});

describe('parseShipping', () => {
  it('is null when there is no shipping', () => {
    expect(parseShipping(undefined)).toBeNull();
    expect(parseShipping(null)).toBeNull();
  });

  it('parses a JSON string, and keeps a string that is not JSON as it is', () => {
    expect(parseShipping('{"city":"Recife","zip":"50000"}')).toStrictEqual({
      city: 'Recife',
      zip: '50000',
    });
    expect(parseShipping('"quoted"')).toBe('quoted');
    expect(parseShipping('Rua A, 10')).toBe('Rua A, 10');
  });

  it('keeps a structured value as it is', () => {
    const shipping = { city: 'Recife' };
    expect(parseShipping(shipping)).toBe(shipping);
    expect(parseShipping(0)).toBe(0);
    // An array whose text is JSON ("5") stays the array.
    expect(parseShipping([5])).toStrictEqual([5]);
  });
});
