/**
 * The control API: legal and illegal moves (409), unknown ids (404), and the balance
 * effects of payment, MED won and lost, chargeback, refund and cashouts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saleBody, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { transactionReadSchema } from './support/specSchemas.js';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(() => harness.close());

async function state() {
  const answer = await harness.call('GET', '/_sandbox/state', { keys: 'missing' });
  expect(answer.status).toBe(200);
  return answer.body as {
    balance: { availableCents: number; reserveCents: number; available: string; reserve: string };
    sales: { count: number; byStatus: Record<string, number> };
    withdrawals: { count: number; byStatus: Record<string, number> };
  };
}

async function paidSale(method: string, amount = 100_000): Promise<number> {
  const { id } = await harness.createSale(saleBody(method, { amount }));
  expect((await harness.moveSale(id, 'PAGO')).status).toBe(200);
  return id;
}

async function reserveAmountOf(id: number): Promise<number | undefined> {
  return transactionReadSchema.parse((await harness.call('GET', `/api/transactions/${id}`)).body)
    .reserveAmount;
}

describe('sale moves', () => {
  it('answers the move and the read form', async () => {
    const { id } = await harness.createSale(saleBody('PIX'));
    const answer = await harness.moveSale(id, 'PAGO');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id,
      from: 'PENDENTE',
      to: 'PAGO',
      transaction: { id, status: 'PAGO' },
    });
  });

  it.each([
    ['PAGO → RECUSADO', 'CREDIT_CARD', ['PAGO'], 'RECUSADO'],
    ['MED on a card sale', 'CREDIT_CARD', ['PAGO'], 'MED'],
    ['MED on a boleto sale', 'BOLETO', ['PAGO'], 'MED'],
    ['CHARGEBACK on a PIX sale', 'PIX', ['PAGO'], 'CHARGEBACK'],
    ['EM_PROCESSAMENTO on a PIX sale', 'PIX', [], 'EM_PROCESSAMENTO'],
    ['a move out of CANCELADO', 'PIX', ['CANCELADO'], 'PAGO'],
    ['PAGO → PENDENTE', 'PIX', ['PAGO'], 'PENDENTE'],
    ['a move to the same status', 'PIX', ['PAGO'], 'PAGO'],
  ])('409 with a clear message for %s', async (_case, method, path, illegal) => {
    const { id } = await harness.createSale(saleBody(method));
    for (const status of path) expect((await harness.moveSale(id, status)).status).toBe(200);
    const before = harness.sandbox.state.sales.get(id)?.status;
    const answer = await harness.moveSale(id, illegal);
    expect(answer.status).toBe(409);
    expect((answer.body as { error: string }).error).toContain(illegal);
    expect(harness.sandbox.state.sales.get(id)?.status).toBe(before);
  });

  it('404 for an unknown sale, 400 for an unknown status', async () => {
    expect((await harness.moveSale(9999, 'PAGO')).status).toBe(404);
    const { id } = await harness.createSale(saleBody('PIX'));
    expect((await harness.moveSale(id, 'PAID')).status).toBe(400);
  });
});

describe('withdrawal moves', () => {
  it('409 for an illegal move, 404 for an unknown withdrawal', async () => {
    await harness.control('/balance', { availableCents: 100_000 });
    const created = await harness.call('POST', '/api/public/cashout', {
      body: { amount: 200, pixKey: '12345678909' },
    });
    const { id } = created.body as { id: number };
    expect((await harness.moveWithdrawal(id, 'COMPLETED')).status).toBe(200);
    expect((await harness.moveWithdrawal(id, 'PROCESSING')).status).toBe(409);
    expect((await harness.moveWithdrawal(id, 'FAILED')).status).toBe(400);
    expect((await harness.moveWithdrawal(9999, 'PROCESSING')).status).toBe(404);
  });
});

describe('balance', () => {
  it('grows by netAmount when a sale is paid', async () => {
    await paidSale('PIX');
    expect((await state()).balance).toEqual({
      availableCents: 99_000,
      reserveCents: 0,
      available: '990.00',
      reserve: '0.00',
    });
  });

  it('MED moves netAmount to the reserve; a won MED returns it', async () => {
    const id = await paidSale('PIX');
    await harness.moveSale(id, 'MED');
    expect((await state()).balance).toMatchObject({ availableCents: 0, reserveCents: 99_000 });
    expect(await reserveAmountOf(id)).toBe(99_000);
    await harness.moveSale(id, 'PAGO');
    expect((await state()).balance).toMatchObject({ availableCents: 99_000, reserveCents: 0 });
    expect(await reserveAmountOf(id)).toBe(0);
  });

  it('a lost MED decrements the reserve only', async () => {
    const id = await paidSale('PIX');
    await harness.moveSale(id, 'MED');
    await harness.moveSale(id, 'ESTORNADO');
    expect((await state()).balance).toMatchObject({ availableCents: 0, reserveCents: 0 });
  });

  it('a chargeback blocks netAmount like MED and a confirmed one drops it', async () => {
    const id = await paidSale('CREDIT_CARD');
    await harness.moveSale(id, 'CHARGEBACK');
    expect((await state()).balance).toMatchObject({ availableCents: 0, reserveCents: 94_970 });
    await harness.moveSale(id, 'ESTORNADO');
    expect((await state()).balance).toMatchObject({ availableCents: 0, reserveCents: 0 });
  });

  it('a refund from PAGO debits netAmount, and may leave the balance negative', async () => {
    const id = await paidSale('PIX');
    await harness.call('POST', '/api/public/cashout', {
      body: { amount: 500, pixKey: '12345678909' },
    });
    await harness.moveSale(id, 'ESTORNADO');
    expect((await state()).balance).toMatchObject({
      availableCents: -50_000,
      available: '-500.00',
    });
    const refused = await harness.call('POST', '/api/public/cashout', {
      body: { amount: 100, pixKey: '12345678909' },
    });
    expect(refused.status).toBe(422);
  });

  it('a cashout debits its amount; a rejected or cancelled one gives it back', async () => {
    await harness.control('/balance', { available: '1000.00' });
    const first = (
      await harness.call('POST', '/api/public/cashout', {
        body: { amount: 300, pixKey: '12345678909' },
      })
    ).body as { id: number };
    const second = (
      await harness.call('POST', '/api/public/cashout', {
        body: { amount: 200, pixKey: '12345678909' },
      })
    ).body as { id: number };
    expect(harness.sandbox.state.balanceCents).toBe(50_000);
    await harness.moveWithdrawal(first.id, 'PROCESSING');
    await harness.moveWithdrawal(first.id, 'REJECTED');
    await harness.moveWithdrawal(second.id, 'CANCELLED');
    expect(harness.sandbox.state.balanceCents).toBe(100_000);
  });

  it('ignores another account’s sales', async () => {
    const { id } = (await harness.control('/foreign-sales', { amount: 5000 })).body as {
      id: number;
    };
    await harness.moveSale(id, 'PAGO');
    expect(harness.sandbox.state.balanceCents).toBe(0);
  });

  it('POST /_sandbox/balance rejects anything but one non-negative amount', async () => {
    expect((await harness.control('/balance', { availableCents: -1 })).status).toBe(400);
    expect((await harness.control('/balance', { available: '10.001' })).status).toBe(400);
    expect(
      (await harness.control('/balance', { available: '1.00', availableCents: 100 })).status,
    ).toBe(400);
  });
});

describe('control settings', () => {
  it('summarises counts by status in GET /_sandbox/state', async () => {
    await paidSale('PIX');
    await harness.createSale(saleBody('CREDIT_CARD'));
    const summary = await state();
    expect(summary.sales).toEqual({ count: 2, byStatus: { PAGO: 1, EM_PROCESSAMENTO: 1 } });
    expect(summary.withdrawals).toEqual({ count: 0, byStatus: {} });
  });

  it('validates faults, config and restrictions', async () => {
    expect((await harness.control('/faults', { drop: 2 })).status).toBe(400);
    expect((await harness.control('/faults', { unknown: 1 })).status).toBe(400);
    expect((await harness.control('/faults', { delayMinMs: 500, delayMaxMs: 100 })).status).toBe(
      400,
    );
    expect((await harness.control('/faults', { duplicate: 0.5 })).body).toMatchObject({
      duplicate: 0.5,
      drop: 0,
    });
    expect((await harness.control('/config', { webhookUrl: 'not a url' })).status).toBe(400);
    expect(
      (await harness.control('/config', { webhookUrl: 'http://127.0.0.1:1/hook' })).body,
    ).toEqual({
      webhookUrl: 'http://127.0.0.1:1/hook',
      postbackSecretConfigured: true,
    });
    expect((await harness.control('/restrictions', { cashoutBlock: 'NOPE' })).status).toBe(400);
  });

  it('answers 404 for unknown control paths and 400 for bad JSON', async () => {
    expect((await harness.control('/nothing', {})).status).toBe(404);
    const answer = await harness.call('POST', '/_sandbox/faults', {
      rawBody: '{',
      keys: 'missing',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.any(String) });
  });
});

describe('the control index', () => {
  it('GET /_sandbox (the start banner links it) lists routes that exist', async () => {
    const index = await harness.call('GET', '/_sandbox', { keys: 'missing' });
    expect(index.status).toBe(200);
    const routes = (index.body as { routes: string[] }).routes;
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes.filter((r) => r.startsWith('GET '))) {
      const path = route.split(/\s+/)[1] as string;
      expect((await harness.call('GET', path, { keys: 'missing' })).status, path).toBe(200);
    }
  });
});
