/**
 * Notifications on both channels (docs/gateway.md 6.1–6.5): when they are sent, their exact fields
 * and units per channel, and the postback signature over the raw bytes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saleBody, startHarness, TEST_POSTBACK_SECRET, TEST_USER_ID } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { bodyJson, startReceiver } from './support/receiver.js';
import type { ReceivedRequest, Receiver } from './support/receiver.js';
import {
  POSTBACK_TRANSACTION_KEYS,
  postbackTransactionSchema,
  WEBHOOK_TRANSACTION_KEYS,
  webhookTransactionSchema,
  withdrawalCreatedSchema,
  withdrawalNotificationSchema,
} from './support/specSchemas.js';

let receiver: Receiver;
let harness: Harness;
beforeEach(async () => {
  receiver = await startReceiver();
  harness = await startHarness({
    webhookUrl: receiver.webhookUrl,
    initialBalanceCents: 1_000_000,
    deliveryConcurrency: 1,
    user: { name: 'Loja Exemplo', email: 'financeiro@loja.example' },
  });
});
afterEach(async () => {
  await harness.close();
  await receiver.close();
});

function verifies(request: ReceivedRequest, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(request.rawBody).digest();
  const given = Buffer.from(String(request.headers['x-signature'] ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function pixSaleWithPostback(overrides: Record<string, unknown> = {}): Promise<number> {
  const { id } = await harness.createSale(
    saleBody('PIX', { postbackUrl: receiver.postbackUrl, ...overrides }),
  );
  return id;
}

const statuses = (requests: ReceivedRequest[]) =>
  requests.map((request) => bodyJson(request).status);

describe('transaction notifications', () => {
  it('sends nothing at creation (PENDENTE) nor for EM_PROCESSAMENTO', async () => {
    await pixSaleWithPostback();
    await harness.createSale(saleBody('CREDIT_CARD', { postbackUrl: receiver.postbackUrl }));
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(0);
  });

  it('sends the permanent webhook in the 6.3 format: amount a string, fee a number, no externalTransactionId', async () => {
    const id = await pixSaleWithPostback();
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();

    const [webhook] = receiver.webhooks();
    expect(webhook?.method).toBe('POST');
    expect(webhook?.headers['content-type']).toMatch(/^application\/json/);
    expect(webhook?.headers['x-signature']).toBeUndefined();
    const body = webhookTransactionSchema.parse(bodyJson(webhook as ReceivedRequest));
    expect(Object.keys(body)).toEqual(WEBHOOK_TRANSACTION_KEYS);
    const sale = harness.sandbox.state.sales.get(id);
    expect(body).toMatchObject({
      id,
      userId: TEST_USER_ID,
      amount: '15050',
      date: sale?.createdAt.toISOString(),
      status: 'PAGO',
      paymentMethod: 'PIX',
      customerDocument: '12345678909',
      customerEmail: 'maria@example.com',
      customerName: 'Maria Silva',
      customerPhone: '11987654321',
      pixKey: sale?.pix?.code,
      boletoCode: null,
      shipping: null,
      fee: 151,
      transactionId: id,
      type: 'TRANSACTION',
    });
    expect(body.saleItems).toEqual([
      {
        id: expect.any(Number),
        saleId: id,
        title: 'Curso online',
        unitPrice: '10000',
        quantity: 1,
        tangible: false,
      },
      {
        id: expect.any(Number),
        saleId: id,
        title: 'Apostila',
        unitPrice: '2525',
        quantity: 2,
        tangible: false,
      },
    ]);
  });

  it('sends the postback in the 6.3 format: externalTransactionId, no fee, transactionId or type', async () => {
    const id = await pixSaleWithPostback();
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();

    const [postback] = receiver.postbacks();
    expect(postback?.headers['content-type']).toMatch(/^application\/json/);
    const body = postbackTransactionSchema.parse(bodyJson(postback as ReceivedRequest));
    expect(Object.keys(body)).toEqual(POSTBACK_TRANSACTION_KEYS);
    expect(body.externalTransactionId).toBe(
      harness.sandbox.state.sales.get(id)?.externalTransactionId,
    );
    expect(body).toMatchObject({ id, userId: TEST_USER_ID, amount: '15050', status: 'PAGO' });
    for (const webhookOnly of ['fee', 'transactionId', 'type'])
      expect(body).not.toHaveProperty(webhookOnly);
  });

  it('signs the postback: lowercase hex HMAC-SHA256 of the raw body bytes, compact JSON', async () => {
    const id = await pixSaleWithPostback({
      customer: { name: 'José Ação', email: 'jose@example.com' },
    });
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();

    const [postback] = receiver.postbacks();
    const request = postback as ReceivedRequest;
    expect(String(request.headers['x-signature'])).toMatch(/^[0-9a-f]{64}$/);
    expect(verifies(request, TEST_POSTBACK_SECRET)).toBe(true);
    expect(verifies(request, 'another-secret')).toBe(false);
    expect(request.rawBody.toString('utf8')).toBe(
      JSON.stringify(JSON.parse(request.rawBody.toString('utf8'))),
    );
  });

  it('signs with the secret set through the control API', async () => {
    await harness.control('/config', { postbackSecret: 'rotated-secret' });
    const id = await pixSaleWithPostback();
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    expect(verifies(receiver.postbacks()[0] as ReceivedRequest, 'rotated-secret')).toBe(true);
  });

  it('notifies every status of 6.2 on both channels, in order', async () => {
    const pix = await pixSaleWithPostback();
    for (const status of ['PAGO', 'MED', 'PAGO', 'ESTORNADO'])
      expect((await harness.moveSale(pix, status)).status).toBe(200);
    const card = (
      await harness.createSale(saleBody('CREDIT_CARD', { postbackUrl: receiver.postbackUrl }))
    ).id;
    for (const status of ['FALHA', 'PAGO', 'CHARGEBACK', 'PAGO'])
      expect((await harness.moveSale(card, status)).status).toBe(200);
    const refused = (
      await harness.createSale(saleBody('DEBIT_CARD', { postbackUrl: receiver.postbackUrl }))
    ).id;
    await harness.moveSale(refused, 'RECUSADO');
    const cancelled = await pixSaleWithPostback();
    await harness.moveSale(cancelled, 'CANCELADO');
    await harness.sandbox.idle();

    const expected = [
      'PAGO',
      'MED',
      'PAGO',
      'ESTORNADO',
      'FALHA',
      'PAGO',
      'CHARGEBACK',
      'PAGO',
      'RECUSADO',
      'CANCELADO',
    ];
    expect(statuses(receiver.webhooks())).toEqual(expected);
    expect(statuses(receiver.postbacks())).toEqual(expected);
  });

  it('sends the boleto code and the shipping string of a physical boleto sale', async () => {
    const shipping = { street: 'Rua B', city: 'Natal' };
    const { id } = await harness.createSale(
      saleBody('BOLETO', {
        postbackUrl: receiver.postbackUrl,
        items: [{ title: 'Camiseta', unitPrice: 15050, quantity: 1, tangible: true }],
        shipping,
      }),
    );
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    const webhook = webhookTransactionSchema.parse(
      bodyJson(receiver.webhooks()[0] as ReceivedRequest),
    );
    expect(webhook.boletoCode).toMatch(/^[0-9]{47}$/);
    expect(webhook.pixKey).toBeNull();
    expect(JSON.parse(webhook.shipping ?? 'null')).toEqual(shipping);
    expect(webhook.fee).toBe(350);
  });

  it('sends only the webhook without postbackUrl, and only the postback without a webhook', async () => {
    const { id } = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.webhooks()).toHaveLength(1);
    expect(receiver.postbacks()).toHaveLength(0);

    await harness.control('/config', { webhookUrl: null });
    const withPostback = await pixSaleWithPostback();
    await harness.moveSale(withPostback, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.webhooks()).toHaveLength(1);
    expect(receiver.postbacks()).toHaveLength(1);
  });

  it('does not notify for another account’s sale', async () => {
    const { id } = (await harness.control('/foreign-sales', {})).body as { id: number };
    expect((await harness.moveSale(id, 'PAGO')).status).toBe(200);
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('withdrawal notifications (docs/gateway.md 6.5)', () => {
  async function requestCashout(): Promise<number> {
    const answer = await harness.call('POST', '/api/public/cashout', {
      body: { amount: 150.5, pixKey: 'maria@example.com', pixKeyType: 'EMAIL' },
    });
    return withdrawalCreatedSchema.parse(answer.body).id;
  }

  it('sends PROCESSING and COMPLETED on the webhook, unsigned, amounts in reais', async () => {
    const id = await requestCashout();
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(0);

    await harness.moveWithdrawal(id, 'PROCESSING');
    await harness.moveWithdrawal(id, 'COMPLETED');
    await harness.sandbox.idle();
    const [processing, completed] = receiver
      .webhooks()
      .map((request) => withdrawalNotificationSchema.parse(bodyJson(request)));
    expect(
      receiver.webhooks().every((request) => request.headers['x-signature'] === undefined),
    ).toBe(true);
    expect(processing).toMatchObject({
      id,
      userId: TEST_USER_ID,
      amount: '150.50',
      pixKey: 'maria@example.com',
      pixKeyType: 'EMAIL',
      status: 'PROCESSING',
      externalId: expect.any(String),
      processedAt: null,
      user: { id: TEST_USER_ID, name: 'Loja Exemplo', email: 'financeiro@loja.example' },
      type: 'WITHDRAWAL',
    });
    expect(completed).toMatchObject({
      id,
      status: 'COMPLETED',
      externalId: processing?.externalId,
    });
    expect(completed?.processedAt).toBe(completed?.updatedAt);
    expect(Date.parse(completed?.updatedAt ?? '')).toBeGreaterThan(
      Date.parse(processing?.updatedAt ?? ''),
    );
  });

  it('sends REJECTED (not FAILED) and CANCELLED', async () => {
    const rejected = await requestCashout();
    await harness.moveWithdrawal(rejected, 'PROCESSING');
    await harness.moveWithdrawal(rejected, 'REJECTED');
    const cancelled = await requestCashout();
    await harness.moveWithdrawal(cancelled, 'CANCELLED');
    await harness.sandbox.idle();
    const bodies = receiver
      .webhooks()
      .map((request) => withdrawalNotificationSchema.parse(bodyJson(request)));
    expect(bodies.map((body) => [body.id, body.status])).toEqual([
      [rejected, 'PROCESSING'],
      [rejected, 'REJECTED'],
      [cancelled, 'CANCELLED'],
    ]);
    expect(bodies[2]?.externalId).toBeNull();
  });

  it('sends nothing without a permanent webhook', async () => {
    await harness.control('/config', { webhookUrl: null });
    const id = await requestCashout();
    await harness.moveWithdrawal(id, 'COMPLETED');
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(0);
  });
});
