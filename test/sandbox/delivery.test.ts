/**
 * Delivery: only HTTP 200 is a receipt; retries with exponential backoff up to maxAttempts;
 * time-outs; the delivery log; idle() and close().
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { saleBody, startHarness, waitFor } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { startReceiver } from './support/receiver.js';
import type { Receiver, Responder } from './support/receiver.js';

let receiver: Receiver | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await receiver?.close();
  harness = undefined;
  receiver = undefined;
});

async function setUp(responder: Responder, options: Partial<SandboxOptions> = {}) {
  receiver = await startReceiver(responder);
  harness = await startHarness({
    webhookUrl: receiver.webhookUrl,
    deliveryConcurrency: 1,
    ...options,
  });
  return { receiver, harness };
}

async function payNewSale(h: Harness): Promise<number> {
  const { id } = await h.createSale(saleBody('PIX'));
  await h.moveSale(id, 'PAGO');
  return id;
}

describe('delivery', () => {
  it('retries until the receiver answers 200, sending the same bytes each time', async () => {
    const { receiver, harness } = await setUp((request) => (request.index < 2 ? 500 : 200));
    await payNewSale(harness);
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((request) => request.rawBody.toString())).size).toBe(1);
    expect(
      harness.sandbox.state.deliveries.map((entry) => [
        entry.attempt,
        entry.statusCode,
        entry.outcome,
      ]),
    ).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 200, 'delivered'],
    ]);
  });

  it('treats any status other than 200 as not received', async () => {
    const { receiver, harness } = await setUp((request) =>
      request.index === 0 ? 204 : request.index === 1 ? 302 : 200,
    );
    await payNewSale(harness);
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(3);
  });

  it('backs off exponentially from retryBaseMs', async () => {
    const { receiver, harness } = await setUp((request) => (request.index < 3 ? 503 : 200), {
      retryBaseMs: 40,
    });
    await payNewSale(harness);
    await harness.sandbox.idle();
    const times = receiver.requests.map((request) => request.receivedAt);
    const gaps = times.slice(1).map((time, index) => time - (times[index] ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
  });

  it('gives up after maxAttempts and then is idle', async () => {
    const { receiver, harness } = await setUp(() => 503, { maxAttempts: 3 });
    await payNewSale(harness);
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(3);
    expect(harness.sandbox.state.deliveries.at(-1)?.outcome).toBe('gave_up');
  });

  it('logs connection failures with no status code', async () => {
    const closed = await startReceiver();
    await closed.close();
    harness = await startHarness({ webhookUrl: closed.webhookUrl, maxAttempts: 2 });
    await payNewSale(harness);
    await harness.sandbox.idle();
    const entries = harness.sandbox.state.deliveries;
    expect(entries).toHaveLength(2);
    expect(
      entries.every((entry) => entry.statusCode === null && typeof entry.error === 'string'),
    ).toBe(true);
  });

  it('times out an attempt that gets no answer and retries it', async () => {
    const { receiver, harness } = await setUp((request) => (request.index === 0 ? 'hang' : 200), {
      deliveryTimeoutMs: 250,
    });
    await payNewSale(harness);
    await harness.sandbox.idle();
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
    const entries = harness.sandbox.state.deliveries;
    expect(entries[0]).toMatchObject({ attempt: 1, statusCode: null, outcome: 'retrying' });
    expect(entries[0]?.error).toMatch(/timeout|abort/i);
    expect(entries.at(-1)).toMatchObject({ statusCode: 200, outcome: 'delivered' });
  });

  it('close() stops pending retries and releases idle()', async () => {
    const { harness } = await setUp(() => 500, { retryBaseMs: 60_000 });
    await payNewSale(harness);
    await waitFor(() => harness.sandbox.state.deliveries.length === 1, 'the first attempt');
    const idle = harness.sandbox.idle();
    await harness.close();
    await idle;
    expect(harness.sandbox.state.deliveries).toHaveLength(1);
  });

  it('lists attempts in GET /_sandbox/deliveries with channel, url, body, status code and attempt', async () => {
    const { receiver, harness } = await setUp(() => 200);
    const { id } = await harness.createSale(saleBody('PIX', { postbackUrl: receiver.postbackUrl }));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();

    const all = await harness.call('GET', '/_sandbox/deliveries', { keys: 'missing' });
    const { deliveries } = all.body as { deliveries: Array<Record<string, unknown>> };
    expect(deliveries).toHaveLength(2);
    const postbacks = await harness.call('GET', '/_sandbox/deliveries?channel=postback', {
      keys: 'missing',
    });
    const [postback] = (postbacks.body as { deliveries: Array<Record<string, unknown>> })
      .deliveries;
    expect(postback).toMatchObject({
      channel: 'postback',
      url: receiver.postbackUrl,
      resource: 'sale',
      resourceId: id,
      notifiedStatus: 'PAGO',
      statusCode: 200,
      attempt: 1,
      outcome: 'delivered',
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.parse(String(postback?.body))).toMatchObject({ id, status: 'PAGO' });

    expect((await harness.call('DELETE', '/_sandbox/deliveries', { keys: 'missing' })).status).toBe(
      204,
    );
    expect(harness.sandbox.state.deliveries).toHaveLength(0);
  });
});
