import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/index.js';
import type { ErrorShape, GatewayClient } from '../../src/gateway/index.js';
import {
  PRIVATE_KEY,
  PUBLIC_KEY,
  clientFor,
  inSequence,
  startFakeGateway,
  withdrawalWire,
} from './fakeGateway.js';
import type { FakeGateway, Reply } from './fakeGateway.js';

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function failure(call: Promise<unknown>): Promise<GatewayError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected the call to fail');
}

function expectNoKeys(error: GatewayError): void {
  for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error)]) {
    expect(text).not.toContain(PUBLIC_KEY);
    expect(text).not.toContain(PRIVATE_KEY);
  }
}

interface Row {
  readonly status: number;
  readonly body: unknown;
  readonly shape: ErrorShape;
  readonly errorType: string | null;
  readonly code: string | null;
  readonly message: string;
}

const shapeB = (status: number, message: string, error: string): Row => ({
  status,
  body: { message, error },
  shape: 'B',
  errorType: null,
  code: null,
  message,
});
const shapeA = (status: number, errorType: string, message: string): Row => ({
  status,
  body: { message, errorType },
  shape: 'A',
  errorType,
  code: null,
  message,
});
const shapeC = (status: number, code: string, message: string): Row => ({
  status,
  body: { success: false, error: { code, message } },
  shape: 'C',
  errorType: null,
  code,
  message,
});

const cashout = (client: GatewayClient) =>
  client.requestCashout({ amountCents: 15050, pixKey: '12345678909', pixKeyType: 'CPF' });

describe('docs/gateway.md 7.1: POST /api/public/cashout', () => {
  const rows: Row[] = [
    shapeB(400, 'Dados inválidos', 'amount must be a valid number greater than zero'),
    shapeB(401, 'Não autorizado', 'API keys invalid or absent'),
    shapeA(403, 'API_WITHDRAWAL_DISABLED_GLOBALLY', 'Saque via API desabilitado'),
    shapeA(403, 'TRANSFER_NOT_ALLOWED', 'Transferência não permitida'),
    shapeA(422, 'INSUFFICIENT_BALANCE', 'Saldo insuficiente'),
    shapeA(422, 'MINIMUM_VALUE', 'Valor mínimo de saque é R$ 100,00'),
    shapeA(422, 'MAXIMUM_VALUE', 'Valor máximo de saque é R$ 100.000,00'),
    shapeA(422, 'TRANSFER_NOT_ALLOWED', 'Valor abaixo do mínimo'),
    shapeB(500, 'Erro interno', 'database unavailable'),
  ];

  it.each(rows)('$status shape $shape $errorType', async (row) => {
    gateway = await startFakeGateway(inSequence({ status: row.status, body: row.body }));
    const error = await failure(cashout(clientFor(gateway)));

    expect(error).toMatchObject({
      endpoint: 'requestCashout',
      kind: 'http',
      status: row.status,
      shape: row.shape,
      errorType: row.errorType,
      code: row.code,
      message: row.message,
      retryAfterSeconds: null,
    });
    expect(gateway.requests).toHaveLength(1);
    expectNoKeys(error);
  });
});

describe('docs/gateway.md 7.2: GET /api/transactions/{id}', () => {
  const rows: Row[] = [
    shapeB(400, 'ID inválido', 'id is not a valid number'),
    shapeB(401, 'Não autorizado', 'Keys invalid or absent'),
    shapeB(403, 'Acesso negado', 'Transaction does not belong to the authenticated account'),
    shapeB(404, 'Transação não encontrada', 'Transaction does not exist'),
    shapeB(500, 'Erro interno', 'Internal failure'),
  ];

  it.each(rows)('$status shape B', async (row) => {
    gateway = await startFakeGateway(inSequence({ status: row.status, body: row.body }));
    const error = await failure(clientFor(gateway).getTransaction(1234));

    expect(error).toMatchObject({
      endpoint: 'getTransaction',
      kind: 'http',
      status: row.status,
      shape: 'B',
      errorType: null,
      code: null,
      message: row.message,
    });
    expect(error.isNotOurs).toBe(row.status === 403 || row.status === 404);
    expect(error.isTransient).toBe(row.status === 500);
    // 500 is retried (4 tries by default); every other row is answered once.
    expect(gateway.requests).toHaveLength(row.status === 500 ? 4 : 1);
    expectNoKeys(error);
  });
});

describe('docs/gateway.md 7.3: authentication errors', () => {
  const rows: Row[] = [
    shapeC(401, 'UNAUTHORIZED', 'Chaves de API inválidas'),
    shapeC(403, 'FORBIDDEN', 'Operação não permitida'),
  ];
  const calls: [string, (client: GatewayClient) => Promise<unknown>][] = [
    ['getTransaction', (client) => client.getTransaction(1234)],
    ['getWithdrawal', (client) => client.getWithdrawal(7)],
    ['requestCashout', cashout],
    [
      'createSale',
      (client) =>
        client.createSale({
          amountCents: 100,
          paymentMethod: 'PIX',
          customer: { name: 'n', email: 'e@example.com' },
          items: [],
        }),
    ],
  ];

  for (const row of rows) {
    it.each(calls)(`${row.status} shape C ${row.code ?? ''} on %s`, async (endpoint, call) => {
      gateway = await startFakeGateway(inSequence({ status: row.status, body: row.body }));
      const error = await failure(call(clientFor(gateway)));
      expect(error).toMatchObject({
        endpoint,
        kind: 'http',
        status: row.status,
        shape: 'C',
        code: row.code,
        errorType: null,
        message: row.message,
      });
      expect(gateway.requests).toHaveLength(1);
      expectNoKeys(error);
    });
  }
});

describe('bodies outside the spec', () => {
  const cases: [string, Reply, string, ErrorShape][] = [
    [
      'an HTML page from a proxy',
      { status: 502, body: '<html>Bad Gateway</html>' },
      'HTTP 502',
      'unknown',
    ],
    ['an empty body', { status: 503 }, 'HTTP 503', 'unknown'],
    ['a bare message', { status: 409, body: { message: 'Conflito' } }, 'Conflito', 'A'],
    ['JSON without a message', { status: 418, body: { ok: false } }, 'HTTP 418', 'unknown'],
  ];

  it.each(cases)('%s', async (_label, reply, message, shape) => {
    gateway = await startFakeGateway(inSequence(reply));
    const error = await failure(cashout(clientFor(gateway)));
    expect(error.kind).toBe('http');
    expect(error.message).toBe(message);
    expect(error.shape).toBe(shape);
  });

  it('a redirect is an error, not followed (it would carry the keys elsewhere)', async () => {
    gateway = await startFakeGateway(
      inSequence({ status: 302, headers: { Location: 'http://127.0.0.1:1/steal' } }),
    );
    const error = await failure(clientFor(gateway).getWithdrawal(7));
    expect(error.status).toBe(302);
    expect(gateway.requests).toHaveLength(1);
  });
});

describe('the keys never leak', () => {
  it('not even when the gateway echoes them in an error body', async () => {
    gateway = await startFakeGateway(
      inSequence({
        status: 401,
        body: {
          success: false,
          error: { code: `BAD_${PUBLIC_KEY}`, message: `keys ${PUBLIC_KEY} / ${PRIVATE_KEY}` },
        },
      }),
    );
    const error = await failure(cashout(clientFor(gateway)));
    expect(error.message).toBe('keys [redacted] / [redacted]');
    expect(error.code).toBe('BAD_[redacted]');
    expectNoKeys(error);
  });

  it('nor in an invalid_response about a field that echoes them', async () => {
    gateway = await startFakeGateway(
      inSequence({ status: 200, body: withdrawalWire({ amount: PRIVATE_KEY }) }),
    );
    const error = await failure(clientFor(gateway).getWithdrawal(7));
    expect(error.kind).toBe('invalid_response');
    expectNoKeys(error);
  });

  it('nor in network and timeout errors', async () => {
    gateway = await startFakeGateway(inSequence('destroy'));
    expectNoKeys(await failure(cashout(clientFor(gateway))));
    await gateway.close();
    gateway = await startFakeGateway(inSequence('hang'));
    expectNoKeys(await failure(cashout(clientFor(gateway, { timeoutMs: 50 }))));
  });

  it('nor when the options are refused', () => {
    const bad = `${PRIVATE_KEY}\n`;
    let thrown: unknown;
    try {
      clientFor(
        { baseUrl: 'http://127.0.0.1:1', requests: [], close: async () => {} },
        { privateKey: bad },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(String(thrown)).not.toContain(PRIVATE_KEY);
  });
});

describe('invalid 2xx bodies', () => {
  const cases: [string, unknown, string][] = [
    ['an amount of the wrong type', withdrawalWire({ amount: 150.5 }), 'amount'],
    [
      'an amount with three decimals',
      withdrawalWire({ fees: { fixed: '2.00', variable: '0.99', total: '2.995' } }),
      'fees.total',
    ],
    ['an unknown status', withdrawalWire({ status: 'DONE' }), 'status'],
    ['a missing id', withdrawalWire({ id: undefined }), 'id'],
    ['another record', withdrawalWire({ id: 8 }), 'id'],
    ['a bad date', withdrawalWire({ createdAt: 'yesterday' }), 'createdAt'],
    ['a date that is a number', withdrawalWire({ createdAt: '1' }), 'createdAt'],
    ['a date without an offset', withdrawalWire({ updatedAt: '2026-11-20T10:05:00' }), 'updatedAt'],
    ['a day the month lacks', withdrawalWire({ createdAt: '2026-02-30T10:00:00Z' }), 'createdAt'],
    ['not JSON', 'OK', 'not JSON'],
    ['an array', [], '(body)'],
  ];

  it.each(cases)('%s → invalid_response naming %s, not retried', async (_label, body, field) => {
    gateway = await startFakeGateway(inSequence({ status: 200, body }));
    const error = await failure(clientFor(gateway).getWithdrawal(7));
    expect(error).toMatchObject({
      kind: 'invalid_response',
      endpoint: 'getWithdrawal',
      status: null,
    });
    expect(error.message).toContain(field);
    expect(error.isTransient).toBe(false);
    expect(gateway.requests).toHaveLength(1);
  });

  it('a transaction with a fractional centavo amount', async () => {
    gateway = await startFakeGateway(
      inSequence({
        status: 200,
        body: {
          id: 1234,
          status: 'PAGO',
          amount: 150.5,
          paymentMethod: 'PIX',
          date: '2026-11-20T10:00:00.000Z',
          customer: { name: 'n', email: 'e', document: 'd', phone: 'p' },
          items: [],
        },
      }),
    );
    const error = await failure(clientFor(gateway).getTransaction(1234));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('amount');
  });

  it('a created sale whose amount is a number, not a string of centavos', async () => {
    gateway = await startFakeGateway(
      inSequence({ status: 201, body: { message: 'ok', sale: { id: 1, amount: 15000 } } }),
    );
    const error = await failure(
      clientFor(gateway).createSale({
        amountCents: 15000,
        paymentMethod: 'PIX',
        customer: { name: 'n', email: 'e@example.com' },
        items: [],
      }),
    );
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('sale.amount');
  });
});
