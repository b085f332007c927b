import { afterEach, describe, expect, it } from 'vitest';
import { MoneyError } from '../../src/domain/money.js';
import type { CreateSaleRequest, GatewayCall } from '../../src/gateway/index.js';
import {
  PRIVATE_KEY,
  PUBLIC_KEY,
  clientFor,
  createdSaleWire,
  inSequence,
  startFakeGateway,
  transactionWire,
  withdrawalWire,
} from './fakeGateway.js';
import type { FakeGateway, ReceivedRequest } from './fakeGateway.js';

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

function expectKeyHeaders(request: ReceivedRequest): void {
  expect(request.headers['x-api-public-key']).toBe(PUBLIC_KEY);
  expect(request.headers['x-api-private-key']).toBe(PRIVATE_KEY);
  expect(request.headers['accept']).toBe('application/json');
}

const SALE_REQUEST: CreateSaleRequest = {
  amountCents: 15000,
  paymentMethod: 'PIX',
  customer: { name: 'Maria da Silva', email: 'maria@example.com', document: '12345678909' },
  items: [
    { title: 'Camiseta', unitPriceCents: 5000, quantity: 2, tangible: true },
    { title: 'E-book', unitPriceCents: 5000, quantity: 1, tangible: false },
  ],
  postbackUrl: 'https://seller.example.com/postbacks',
};

describe('GET /api/public/cashout/{id}', () => {
  it('converts docs/gateway.md 2.1 reais strings to centavos, updatedAt included', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    const withdrawal = await clientFor(gateway).getWithdrawal(7);

    expect(withdrawal).toEqual({
      id: 7,
      status: 'COMPLETED',
      amountCents: 15050,
      netAmountCents: 14751,
      feeFixedCents: 200,
      feeVariableCents: 99,
      feeTotalCents: 299,
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
      createdAt: new Date('2026-11-20T10:00:00.000Z'),
      updatedAt: new Date('2026-11-20T10:05:00.000Z'),
    });
    const [request] = gateway.requests;
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/api/public/cashout/7');
    expect(request?.body).toBe('');
    expectKeyHeaders(request!);
  });

  it('keeps a path prefix of baseUrl and ignores a trailing slash', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    const client = clientFor(gateway, { baseUrl: `${gateway.baseUrl}/gw/` });
    await client.getWithdrawal(7);
    expect(gateway.requests[0]?.url).toBe('/gw/api/public/cashout/7');
  });
});

describe('POST /api/public/cashout', () => {
  it('sends amount as a JSON number of reais (15050 → 150.5) and reads the answer', async () => {
    const { updatedAt: _omitted, ...created } = withdrawalWire({ status: 'PENDING' });
    gateway = await startFakeGateway(inSequence({ status: 201, body: created }));
    const withdrawal = await clientFor(gateway).requestCashout({
      amountCents: 15050,
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
    });

    const [request] = gateway.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/public/cashout');
    expect(request?.headers['content-type']).toBe('application/json');
    expectKeyHeaders(request!);
    expect(request?.body).toContain('"amount":150.5');
    expect(request?.body).toBe(
      '{"amount":150.5,"pixKey":"maria@example.com","pixKeyType":"EMAIL"}',
    );

    expect(withdrawal.status).toBe('PENDING');
    expect(withdrawal.amountCents).toBe(15050);
    expect(withdrawal.netAmountCents).toBe(14751);
    expect(withdrawal.feeTotalCents).toBe(299);
    expect(withdrawal.updatedAt).toBeNull();
  });

  it.each([
    [10000, '{"amount":100,'],
    [10001, '{"amount":100.01,'],
    [1, '{"amount":0.01,'],
    [10000000, '{"amount":100000,'],
    [12345678, '{"amount":123456.78,'],
  ])('%i centavos go out as %s', async (cents, prefix) => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    await clientFor(gateway).requestCashout({ amountCents: cents, pixKey: '12345678909' });
    expect(gateway.requests[0]?.body.startsWith(prefix)).toBe(true);
  });

  it('leaves pixKeyType out when not given (the gateway defaults to CPF)', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    await clientFor(gateway).requestCashout({ amountCents: 15050, pixKey: '12345678909' });
    expect(JSON.parse(gateway.requests[0]?.body ?? '')).toEqual({
      amount: 150.5,
      pixKey: '12345678909',
    });
  });

  it.each([150.5, -1, Number.NaN])(
    'refuses %s centavos with a MoneyError before sending anything',
    async (cents) => {
      gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
      const sending = clientFor(gateway).requestCashout({ amountCents: cents, pixKey: 'k' });
      await expect(sending).rejects.toBeInstanceOf(MoneyError);
      expect(gateway.requests).toHaveLength(0);
    },
  );

  it('leaves the docs/gateway.md 8 limits to the gateway: 50.00 reais is sent', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    await clientFor(gateway).requestCashout({ amountCents: 5000, pixKey: 'short' });
    expect(gateway.requests).toHaveLength(1);
  });
});

describe('GET /api/transactions/{id}', () => {
  it('reads the numbers of centavos of docs/gateway.md 2.2', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: transactionWire() }));
    const transaction = await clientFor(gateway).getTransaction(1234);

    expect(transaction).toEqual({
      id: 1234,
      status: 'PAGO',
      paymentMethod: 'PIX',
      amountCents: 15000,
      netAmountCents: 14251,
      systemFeeCents: 749,
      reserveAmountCents: 0,
      createdAt: new Date('2026-11-20T10:00:00.000Z'),
      completedAt: new Date('2026-11-20T10:02:30.000Z'),
      customerName: 'Maria da Silva',
      customerEmail: 'maria@example.com',
      customerDocument: '12345678909',
      customerPhone: '11999998888',
      items: [
        { itemId: 1, title: 'Camiseta', unitPriceCents: 5000, quantity: 2, tangible: true },
        { itemId: 2, title: 'E-book', unitPriceCents: 5000, quantity: 1, tangible: false },
      ],
      pixCode: '00020126580014br.gov.bcb.pix0136chave',
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      externalTransactionId: 'ext-1234',
      installments: null,
      shipping: null,
    });
    expect(gateway.requests[0]?.url).toBe('/api/transactions/1234');
    expectKeyHeaders(gateway.requests[0]!);
  });

  it('maps absent optional sums and fields to null; keeps card data and shipping', async () => {
    const {
      netAmount: _n,
      systemFee: _s,
      reserveAmount: _r,
      completedAt: _c,
      pixKey: _p,
      externalTransactionId: _e,
      ...required
    } = transactionWire({
      status: 'EM_PROCESSAMENTO',
      paymentMethod: 'CREDIT_CARD',
      cardLastFour: '4242',
      cardBrand: 'VISA',
      installments: 3,
      shipping: { street: 'Rua A', number: '10' },
    });
    gateway = await startFakeGateway(inSequence({ status: 200, body: required }));
    const transaction = await clientFor(gateway).getTransaction(1234);

    expect(transaction.netAmountCents).toBeNull();
    expect(transaction.systemFeeCents).toBeNull();
    expect(transaction.reserveAmountCents).toBeNull();
    expect(transaction.completedAt).toBeNull();
    expect(transaction.pixCode).toBeNull();
    expect(transaction.externalTransactionId).toBeNull();
    expect(transaction.cardLastFour).toBe('4242');
    expect(transaction.cardBrand).toBe('VISA');
    expect(transaction.installments).toBe(3);
    expect(transaction.shipping).toEqual({ street: 'Rua A', number: '10' });
  });
});

describe('POST /api/sales', () => {
  it('sends centavos and reads the string amount, PIX data and JSON-in-a-string shipping', async () => {
    gateway = await startFakeGateway(inSequence({ status: 201, body: createdSaleWire() }));
    const sale = await clientFor(gateway).createSale(SALE_REQUEST);

    const [request] = gateway.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/sales');
    expect(request?.headers['content-type']).toBe('application/json');
    expectKeyHeaders(request!);
    expect(JSON.parse(request?.body ?? '')).toEqual({
      amount: 15000,
      paymentMethod: 'PIX',
      customer: { name: 'Maria da Silva', email: 'maria@example.com', document: '12345678909' },
      items: [
        { title: 'Camiseta', unitPrice: 5000, quantity: 2, tangible: true },
        { title: 'E-book', unitPrice: 5000, quantity: 1, tangible: false },
      ],
      postbackUrl: 'https://seller.example.com/postbacks',
    });
    expect(request?.body).toContain('"amount":15000');

    expect(sale).toEqual({
      id: 5678,
      status: 'PENDENTE',
      paymentMethod: 'PIX',
      amountCents: 15000,
      createdAt: new Date('2026-11-20T10:00:00.000Z'),
      customerName: 'Maria da Silva',
      customerEmail: 'maria@example.com',
      customerDocument: '12345678909',
      customerPhone: '11999998888',
      installments: null,
      pixCode: '00020126580014br.gov.bcb.pix0136chave5204000053039865406150.00',
      pixQrCodeDataUri: 'data:image/png;base64,iVBORw0KGgo=',
      pixExpiresAt: new Date('2026-11-21T10:00:00.000Z'),
      shipping: { street: 'Rua A', number: '10', zipCode: '01001000' },
    });
  });

  it.each([
    ['a string that is not JSON', 'Rua A, 10', 'Rua A, 10'],
    ['null (a digital product)', null, null],
    ['absent', undefined, null],
  ])('shipping %s', async (_label, shipping, expected) => {
    gateway = await startFakeGateway(
      inSequence({ status: 201, body: createdSaleWire({ shipping }) }),
    );
    const sale = await clientFor(gateway).createSale(SALE_REQUEST);
    expect(sale.shipping).toEqual(expected);
  });

  it('reads a PIX that does not expire and a card sale without pix data', async () => {
    gateway = await startFakeGateway(
      inSequence(
        {
          status: 201,
          body: createdSaleWire({ payment: { method: 'PIX', pix: { key: 'k', expiresAt: null } } }),
        },
        {
          status: 201,
          body: createdSaleWire({
            paymentMethod: 'CREDIT_CARD',
            status: 'EM_PROCESSAMENTO',
            payment: { method: 'CREDIT_CARD', installments: 3 },
          }),
        },
      ),
    );
    const client = clientFor(gateway);
    const pix = await client.createSale(SALE_REQUEST);
    expect(pix.pixCode).toBe('k');
    expect(pix.pixQrCodeDataUri).toBeNull();
    expect(pix.pixExpiresAt).toBeNull();
    const card = await client.createSale({ ...SALE_REQUEST, paymentMethod: 'CREDIT_CARD' });
    expect(card.installments).toBe(3);
    expect(card.pixCode).toBeNull();
    expect(card.status).toBe('EM_PROCESSAMENTO');
  });

  it('passes `extra` through without letting it replace a typed field', async () => {
    gateway = await startFakeGateway(inSequence({ status: 201, body: createdSaleWire() }));
    await clientFor(gateway).createSale({
      ...SALE_REQUEST,
      extra: { amount: 1, installments: 2, card: { token: 'tok_1' } },
    });
    const sent = JSON.parse(gateway.requests[0]?.body ?? '') as Record<string, unknown>;
    expect(sent['amount']).toBe(15000);
    expect(sent['installments']).toBe(2);
    expect(sent['card']).toEqual({ token: 'tok_1' });
  });

  it('refuses a fractional unit price with a MoneyError before sending', async () => {
    gateway = await startFakeGateway(inSequence({ status: 201, body: createdSaleWire() }));
    const item = { title: 'x', unitPriceCents: 10.5, quantity: 1, tangible: false };
    const sending = clientFor(gateway).createSale({ ...SALE_REQUEST, items: [item] });
    await expect(sending).rejects.toBeInstanceOf(MoneyError);
    expect(gateway.requests).toHaveLength(0);
  });
});

describe('every call', () => {
  it('carries both key headers and reports each attempt to onCall', async () => {
    gateway = await startFakeGateway((request) => {
      if (request.url.startsWith('/api/transactions/'))
        return { status: 200, body: transactionWire() };
      if (request.url === '/api/sales') return { status: 201, body: createdSaleWire() };
      if (request.method === 'POST') return { status: 200, body: withdrawalWire() };
      return { status: 200, body: withdrawalWire() };
    });
    const calls: GatewayCall[] = [];
    const client = clientFor(gateway, { onCall: (call) => calls.push(call) });
    await client.getTransaction(1234);
    await client.getWithdrawal(7);
    await client.createSale(SALE_REQUEST);
    await client.requestCashout({ amountCents: 15050, pixKey: '12345678909' });

    expect(gateway.requests).toHaveLength(4);
    for (const request of gateway.requests) expectKeyHeaders(request);
    expect(calls.map(({ endpoint, status }) => [endpoint, status])).toEqual([
      ['getTransaction', 200],
      ['getWithdrawal', 200],
      ['createSale', 201],
      ['requestCashout', 200],
    ]);
    for (const call of calls) expect(call.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses ids that are not positive safe integers before any request', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: transactionWire() }));
    const client = clientFor(gateway);
    for (const id of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      await expect(client.getTransaction(id)).rejects.toBeInstanceOf(RangeError);
      await expect(client.getWithdrawal(id)).rejects.toBeInstanceOf(RangeError);
    }
    expect(gateway.requests).toHaveLength(0);
  });

  it('an onCall that throws does not change the outcome', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200, body: withdrawalWire() }));
    const client = clientFor(gateway, {
      onCall: () => {
        throw new Error('metrics broke');
      },
    });
    await expect(client.getWithdrawal(7)).resolves.toMatchObject({ amountCents: 15050 });
  });
});
