/**
 * Every row of docs/gateway.md 7.2: GET /api/transactions/{id} answers shape B for every error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saleBody, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { errorShapeB } from './support/specSchemas.js';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(() => harness.close());

describe('GET /api/transactions/{id} errors (docs/gateway.md 7.2)', () => {
  it.each(['abc', '1.5', '-1', '1e3', '%20'])(
    '400 shape B when the id %j is not a valid number',
    async (id) => {
      const answer = await harness.call('GET', `/api/transactions/${id}`);
      expect(answer.status).toBe(400);
      errorShapeB.parse(answer.body);
    },
  );

  it.each(['missing', 'wrong', 'public-only', 'swapped'] as const)(
    '401 shape B when keys are %s',
    async (keys) => {
      const { id } = await harness.createSale(saleBody('PIX'));
      const answer = await harness.call('GET', `/api/transactions/${id}`, { keys });
      expect(answer.status).toBe(401);
      errorShapeB.parse(answer.body);
    },
  );

  it('403 shape B when the transaction belongs to another account', async () => {
    const foreign = await harness.control('/foreign-sales', { paymentMethod: 'PIX', amount: 5000 });
    expect(foreign.status).toBe(201);
    const { id } = foreign.body as { id: number };
    const answer = await harness.call('GET', `/api/transactions/${id}`);
    expect(answer.status).toBe(403);
    errorShapeB.parse(answer.body);
  });

  it('404 shape B when the transaction does not exist', async () => {
    const answer = await harness.call('GET', '/api/transactions/999999');
    expect(answer.status).toBe(404);
    errorShapeB.parse(answer.body);
  });

  it('500 shape B on an internal failure (internalError fault)', async () => {
    const { id } = await harness.createSale(saleBody('PIX'));
    await harness.control('/faults', { internalError: 1 });
    const answer = await harness.call('GET', `/api/transactions/${id}`);
    expect(answer.status).toBe(500);
    errorShapeB.parse(answer.body);
  });

  it('checks the keys before the id', async () => {
    const answer = await harness.call('GET', '/api/transactions/abc', { keys: 'missing' });
    expect(answer.status).toBe(401);
  });
});

describe('a route the gateway does not have', () => {
  it("answers NestJS's own 404 body", async () => {
    const answer = await harness.call('GET', '/v1/api/transactions/12');
    expect(answer.status).toBe(404);
    expect(answer.body).toStrictEqual({
      statusCode: 404,
      message: 'Cannot GET /v1/api/transactions/12',
      error: 'Not Found',
    });
  });
});
