/**
 * POST /api/public/cashout (docs/gateway.md 2.1, 4.1, 7.1, 8) and GET /api/public/cashout/{id}
 * (4.2).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import {
  errorShapeA,
  errorShapeB,
  errorShapeC,
  withdrawalCreatedSchema,
  withdrawalReadSchema,
} from './support/specSchemas.js';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness({ initialBalanceCents: 20_000_000 });
});
afterEach(() => harness.close());

const cashout = (body: unknown, keys: 'valid' | 'missing' | 'wrong' = 'valid') =>
  harness.call('POST', '/api/public/cashout', { body, keys });

describe('POST /api/public/cashout success', () => {
  it('answers a Withdrawal without updatedAt, status PENDING, reais strings and the fee breakdown', async () => {
    const answer = await cashout({
      amount: 150.5,
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
    });
    expect(answer.status).toBe(201);
    const withdrawal = withdrawalCreatedSchema.parse(answer.body);
    expect(withdrawal).toMatchObject({
      amount: '150.50',
      netAmount: '147.75',
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
      status: 'PENDING',
      fees: { fixed: '2.00', variable: '0.75', total: '2.75' },
    });
    expect(withdrawal).not.toHaveProperty('updatedAt');
  });

  it('defaults pixKeyType to CPF and debits the gross amount from the balance', async () => {
    const answer = await cashout({ amount: 100, pixKey: '12345678909' });
    expect(withdrawalCreatedSchema.parse(answer.body).pixKeyType).toBe('CPF');
    expect(harness.sandbox.state.balanceCents).toBe(20_000_000 - 10_000);
  });

  it('accepts exactly the limits 100.00 and 100000.00', async () => {
    expect((await cashout({ amount: 100.0, pixKey: '12345678909' })).status).toBe(201);
    expect((await cashout({ amount: 100000.0, pixKey: '12345678909' })).status).toBe(201);
  });
});

describe('POST /api/public/cashout errors (docs/gateway.md 7.1)', () => {
  it.each([
    ['amount missing', { pixKey: '12345678909' }],
    ['amount a string', { amount: '150.00', pixKey: '12345678909' }],
    ['amount zero', { amount: 0, pixKey: '12345678909' }],
    ['amount negative', { amount: -150, pixKey: '12345678909' }],
    ['amount with 3 decimals', { amount: 150.505, pixKey: '12345678909' }],
    ['pixKey of 7 characters', { amount: 150, pixKey: '1234567' }],
    ['pixKey of 78 characters', { amount: 150, pixKey: 'k'.repeat(78) }],
    ['pixKey missing', { amount: 150 }],
    ['unknown pixKeyType', { amount: 150, pixKey: '12345678909', pixKeyType: 'IBAN' }],
  ])('400 shape B for %s', async (_case, body) => {
    const answer = await cashout(body);
    expect(answer.status).toBe(400);
    errorShapeB.parse(answer.body);
  });

  it('accepts pixKey lengths 8 and 77', async () => {
    expect(
      (await cashout({ amount: 150, pixKey: 'k'.repeat(8), pixKeyType: 'RANDOM' })).status,
    ).toBe(201);
    expect(
      (await cashout({ amount: 150, pixKey: 'k'.repeat(77), pixKeyType: 'RANDOM' })).status,
    ).toBe(201);
  });

  it('400 shape B for a body that is not JSON', async () => {
    const answer = await harness.call('POST', '/api/public/cashout', { rawBody: 'amount=150' });
    expect(answer.status).toBe(400);
    errorShapeB.parse(answer.body);
  });

  it.each(['missing', 'wrong'] as const)('401 shape B when keys are %s', async (keys) => {
    const answer = await cashout({ amount: 150, pixKey: '12345678909' }, keys);
    expect(answer.status).toBe(401);
    errorShapeB.parse(answer.body);
  });

  it.each(['API_WITHDRAWAL_DISABLED_GLOBALLY', 'TRANSFER_NOT_ALLOWED'])(
    '403 shape A %s',
    async (errorType) => {
      await harness.control('/restrictions', { cashoutBlock: errorType });
      const answer = await cashout({ amount: 150, pixKey: '12345678909' });
      expect(answer.status).toBe(403);
      expect(errorShapeA.parse(answer.body).errorType).toBe(errorType);
      await harness.control('/restrictions', { cashoutBlock: null });
      expect((await cashout({ amount: 150, pixKey: '12345678909' })).status).toBe(201);
    },
  );

  it('422 shape A MINIMUM_VALUE below 100.00', async () => {
    const answer = await cashout({ amount: 99.99, pixKey: '12345678909' });
    expect(answer.status).toBe(422);
    expect(errorShapeA.parse(answer.body).errorType).toBe('MINIMUM_VALUE');
  });

  it('422 shape A MAXIMUM_VALUE above 100000.00', async () => {
    const answer = await cashout({ amount: 100000.01, pixKey: '12345678909' });
    expect(answer.status).toBe(422);
    expect(errorShapeA.parse(answer.body).errorType).toBe('MAXIMUM_VALUE');
  });

  it('422 shape A INSUFFICIENT_BALANCE above the available balance, leaving it untouched', async () => {
    await harness.control('/balance', { available: '500.00' });
    const answer = await cashout({ amount: 500.01, pixKey: '12345678909' });
    expect(answer.status).toBe(422);
    expect(errorShapeA.parse(answer.body).errorType).toBe('INSUFFICIENT_BALANCE');
    expect(harness.sandbox.state.balanceCents).toBe(50_000);
  });

  it('500 shape B on an internal failure (internalError fault)', async () => {
    await harness.control('/faults', { internalError: 1 });
    const answer = await cashout({ amount: 150, pixKey: '12345678909' });
    expect(answer.status).toBe(500);
    errorShapeB.parse(answer.body);
  });

  it('checks in the order body, limits, balance', async () => {
    await harness.control('/balance', { availableCents: 0 });
    expect((await cashout({ amount: 50, pixKey: 'short' })).status).toBe(400);
    expect(
      errorShapeA.parse((await cashout({ amount: 50, pixKey: '12345678909' })).body).errorType,
    ).toBe('MINIMUM_VALUE');
    expect(
      errorShapeA.parse((await cashout({ amount: 200000, pixKey: '12345678909' })).body).errorType,
    ).toBe('MAXIMUM_VALUE');
    expect(
      errorShapeA.parse((await cashout({ amount: 150, pixKey: '12345678909' })).body).errorType,
    ).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('GET /api/public/cashout/{id}', () => {
  async function create(): Promise<number> {
    const answer = await cashout({ amount: 150.5, pixKey: '12345678909' });
    return withdrawalCreatedSchema.parse(answer.body).id;
  }

  it('answers the Withdrawal with updatedAt', async () => {
    const id = await create();
    const answer = await harness.call('GET', `/api/public/cashout/${id}`);
    expect(answer.status).toBe(200);
    const withdrawal = withdrawalReadSchema.parse(answer.body);
    expect(withdrawal).toMatchObject({
      id,
      amount: '150.50',
      netAmount: '147.75',
      status: 'PENDING',
    });
    expect(withdrawal.updatedAt).toBe(withdrawal.createdAt);
  });

  it('shows a bank-rejected withdrawal as FAILED, with a later updatedAt', async () => {
    const id = await create();
    await harness.moveWithdrawal(id, 'PROCESSING');
    expect((await harness.moveWithdrawal(id, 'REJECTED')).status).toBe(200);
    const withdrawal = withdrawalReadSchema.parse(
      (await harness.call('GET', `/api/public/cashout/${id}`)).body,
    );
    expect(withdrawal.status).toBe('FAILED');
    expect(Date.parse(withdrawal.updatedAt)).toBeGreaterThan(Date.parse(withdrawal.createdAt));
  });

  it('answers 401 shape C without keys, 400 shape B for a bad id, 404 shape B for an unknown id', async () => {
    const id = await create();
    const unauthorized = await harness.call('GET', `/api/public/cashout/${id}`, {
      keys: 'missing',
    });
    expect(unauthorized.status).toBe(401);
    expect(errorShapeC.parse(unauthorized.body).error.code).toBe('UNAUTHORIZED');
    const badId = await harness.call('GET', '/api/public/cashout/x1');
    expect(badId.status).toBe(400);
    errorShapeB.parse(badId.body);
    const unknown = await harness.call('GET', '/api/public/cashout/424242');
    expect(unknown.status).toBe(404);
    errorShapeB.parse(unknown.body);
  });
});
