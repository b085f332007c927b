import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/index.js';
import type { CreateSaleRequest, GatewayCall, RateLimiter } from '../../src/gateway/index.js';
import {
  clientFor,
  createdSaleWire,
  inSequence,
  recordingSleep,
  startFakeGateway,
  transactionWire,
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

const internal: Reply = { status: 500, body: { message: 'Erro interno', error: 'boom' } };
const unavailable: Reply = { status: 503, body: { message: 'Indisponível', error: 'maintenance' } };

const SALE: CreateSaleRequest = {
  amountCents: 15000,
  paymentMethod: 'PIX',
  customer: { name: 'Maria', email: 'maria@example.com' },
  items: [{ title: 'Camiseta', unitPriceCents: 15000, quantity: 1, tangible: true }],
};

describe('the two GETs retry transient failures', () => {
  it('500, 500, 200: succeeds on the third request', async () => {
    gateway = await startFakeGateway(
      inSequence(internal, internal, { status: 200, body: transactionWire() }),
    );
    const { sleep, waits } = recordingSleep();
    const transaction = await clientFor(gateway, { sleep }).getTransaction(1234);
    expect(transaction.amountCents).toBe(15000);
    expect(gateway.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('backs off exponentially with full jitter, capped at maxDelayMs', async () => {
    gateway = await startFakeGateway(inSequence(internal));
    const { sleep, waits } = recordingSleep();
    const client = clientFor(gateway, {
      sleep,
      random: () => 0.5,
      retry: { attempts: 5, baseDelayMs: 100, maxDelayMs: 300 },
    });
    const error = await failure(client.getWithdrawal(7));
    expect(error.status).toBe(500);
    expect(gateway.requests).toHaveLength(5);
    // 0.5 × min(300, 100 × 2^n) for n = 0..3
    expect(waits).toEqual([50, 100, 150, 150]);
  });

  it('gives up after `attempts` tries and throws the last error', async () => {
    gateway = await startFakeGateway(inSequence(internal, internal, unavailable));
    const client = clientFor(gateway, { retry: { attempts: 3 } });
    const error = await failure(client.getWithdrawal(7));
    expect(error).toMatchObject({ kind: 'http', status: 503, message: 'Indisponível' });
    expect(gateway.requests).toHaveLength(3);
  });

  it('429 with Retry-After: 1 waits at least a second', async () => {
    gateway = await startFakeGateway(
      inSequence(
        { status: 429, headers: { 'Retry-After': '1' }, body: { message: 'Too many requests' } },
        { status: 200, body: withdrawalWire() },
      ),
    );
    const { sleep, waits } = recordingSleep();
    const withdrawal = await clientFor(gateway, { sleep, random: () => 0 }).getWithdrawal(7);
    expect(withdrawal.id).toBe(7);
    expect(gateway.requests).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('a Retry-After longer than 60 s is waited for 60 s at most, and exposed on the error', async () => {
    gateway = await startFakeGateway(
      inSequence({
        status: 429,
        headers: { 'Retry-After': '3600' },
        body: { message: 'slow down' },
      }),
    );
    const { sleep, waits } = recordingSleep();
    const client = clientFor(gateway, { sleep, random: () => 0, retry: { attempts: 2 } });
    const error = await failure(client.getWithdrawal(7));
    expect(error.retryAfterSeconds).toBe(3600);
    expect(waits).toEqual([60_000]);
  });

  it('a connection reset is retried', async () => {
    gateway = await startFakeGateway(
      inSequence('destroy', 'destroy', { status: 200, body: transactionWire() }),
    );
    const calls: GatewayCall[] = [];
    const client = clientFor(gateway, { onCall: (call) => calls.push(call) });
    const transaction = await client.getTransaction(1234);
    expect(transaction.id).toBe(1234);
    expect(gateway.requests).toHaveLength(3);
    expect(calls.map((call) => call.status)).toEqual(['network', 'network', 200]);
  });

  it('a closed server gives kind network after every try', async () => {
    gateway = await startFakeGateway(inSequence({ status: 200 }));
    const baseUrl = gateway.baseUrl;
    await gateway.close();
    gateway = undefined;
    const calls: GatewayCall[] = [];
    const client = clientFor(
      { baseUrl, requests: [], close: async () => {} },
      { onCall: (call) => calls.push(call) },
    );
    const error = await failure(client.getWithdrawal(7));
    expect(error.kind).toBe('network');
    expect(error.status).toBeNull();
    expect(error.isTransient).toBe(true);
    expect(calls).toHaveLength(4);
  });

  it.each([400, 401, 403, 404, 409, 422])('%i is not retried', async (status) => {
    gateway = await startFakeGateway(
      inSequence(
        { status, body: { message: 'no', error: 'no' } },
        { status: 200, body: transactionWire() },
      ),
    );
    const { sleep, waits } = recordingSleep();
    const error = await failure(clientFor(gateway, { sleep }).getTransaction(1234));
    expect(error.status).toBe(status);
    expect(gateway.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('every try, retries included, takes a token from the rate limiter', async () => {
    gateway = await startFakeGateway(
      inSequence(internal, internal, { status: 200, body: transactionWire() }),
    );
    let acquired = 0;
    const rateLimiter: RateLimiter = {
      acquire: () => {
        acquired += 1;
        return Promise.resolve();
      },
    };
    await clientFor(gateway, { rateLimiter }).getTransaction(1234);
    expect(acquired).toBe(3);
  });
});

describe('the POSTs are sent exactly once, whatever happens', () => {
  const cashout = { amountCents: 15050, pixKey: '12345678909' };
  const failures: [string, Reply][] = [
    ['500', internal],
    ['503', unavailable],
    [
      '429 with Retry-After',
      { status: 429, headers: { 'Retry-After': '1' }, body: { message: 'slow' } },
    ],
    ['a connection reset', 'destroy'],
  ];

  it.each(failures)('requestCashout answered %s: one request', async (_label, reply) => {
    gateway = await startFakeGateway(inSequence(reply, { status: 200, body: withdrawalWire() }));
    const { sleep, waits } = recordingSleep();
    const error = await failure(clientFor(gateway, { sleep }).requestCashout(cashout));
    expect(error.endpoint).toBe('requestCashout');
    expect(gateway.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it.each(failures)('createSale answered %s: one request', async (_label, reply) => {
    gateway = await startFakeGateway(inSequence(reply, { status: 201, body: createdSaleWire() }));
    const { sleep, waits } = recordingSleep();
    const error = await failure(clientFor(gateway, { sleep }).createSale(SALE));
    expect(error.endpoint).toBe('createSale');
    expect(gateway.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('requestCashout with no answer in time: kind timeout, one request', async () => {
    gateway = await startFakeGateway(inSequence('hang'));
    const error = await failure(clientFor(gateway, { timeoutMs: 100 }).requestCashout(cashout));
    expect(error.kind).toBe('timeout');
    expect(gateway.requests).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('a server that never answers: kind timeout after every try', async () => {
    gateway = await startFakeGateway(inSequence('hang'));
    const calls: GatewayCall[] = [];
    const { sleep, waits } = recordingSleep();
    const client = clientFor(gateway, {
      timeoutMs: 200,
      sleep,
      retry: { attempts: 3 },
      onCall: (call) => calls.push(call),
    });
    const error = await failure(client.getWithdrawal(7));
    expect(error).toMatchObject({ kind: 'timeout', endpoint: 'getWithdrawal', status: null });
    expect(error.isTransient).toBe(true);
    expect(gateway.requests).toHaveLength(3);
    expect(calls.map((call) => call.status)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(waits).toHaveLength(2);
  });

  it('the timeout covers the body: headers then silence is a timeout too', async () => {
    gateway = await startFakeGateway(inSequence('stall', { status: 200, body: withdrawalWire() }));
    const calls: GatewayCall[] = [];
    const client = clientFor(gateway, { timeoutMs: 200, onCall: (call) => calls.push(call) });
    const withdrawal = await client.getWithdrawal(7);
    expect(withdrawal.amountCents).toBe(15050);
    expect(calls.map((call) => call.status)).toEqual(['timeout', 200]);
  });
});
