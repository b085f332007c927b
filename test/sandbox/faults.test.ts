/**
 * Fault injection with a seeded random source: duplicates, drops, bad signatures,
 * reordering, delays, and the same decisions on every run with the same seed.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createFaultInjector } from '../../src/sandbox/delivery/faults.js';
import type { Faults, SandboxOptions } from '../../src/sandbox/index.js';
import { saleBody, seededRandom, startHarness, TEST_POSTBACK_SECRET } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { bodyJson, startReceiver } from './support/receiver.js';
import type { ReceivedRequest, Receiver } from './support/receiver.js';

let receiver: Receiver | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await receiver?.close();
  harness = undefined;
  receiver = undefined;
});

async function setUp(faults: Partial<Faults>, options: Partial<SandboxOptions> = {}) {
  receiver = await startReceiver();
  harness = await startHarness({
    webhookUrl: receiver.webhookUrl,
    faults,
    random: seededRandom(20240611),
    deliveryConcurrency: 1,
    ...options,
  });
  return { receiver, harness };
}

function signatureValid(request: ReceivedRequest): boolean {
  const expected = createHmac('sha256', TEST_POSTBACK_SECRET).update(request.rawBody).digest('hex');
  return request.headers['x-signature'] === expected;
}

describe('faults', () => {
  it('duplicate: the same notification arrives twice on each channel', async () => {
    const { receiver, harness } = await setUp({ duplicate: 1 });
    const { id } = await harness.createSale(saleBody('PIX', { postbackUrl: receiver.postbackUrl }));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.webhooks()).toHaveLength(2);
    expect(receiver.postbacks()).toHaveLength(2);
    const [first, second] = receiver.postbacks();
    expect(first?.rawBody.equals(second?.rawBody ?? Buffer.alloc(0))).toBe(true);
    expect(receiver.postbacks().every(signatureValid)).toBe(true);
  });

  it('drop: nothing arrives, and the log says dropped', async () => {
    const { receiver, harness } = await setUp({ drop: 1 });
    const { id } = await harness.createSale(saleBody('PIX', { postbackUrl: receiver.postbackUrl }));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.requests).toHaveLength(0);
    expect(
      harness.sandbox.state.deliveries.map((entry) => [
        entry.channel,
        entry.outcome,
        entry.attempt,
      ]),
    ).toEqual([
      ['webhook', 'dropped', 0],
      ['postback', 'dropped', 0],
    ]);
  });

  it('badSignature: the postback fails verification; the webhook stays unsigned', async () => {
    const { receiver, harness } = await setUp({ badSignature: 1 });
    const { id } = await harness.createSale(saleBody('PIX', { postbackUrl: receiver.postbackUrl }));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    const [postback] = receiver.postbacks();
    expect(String(postback?.headers['x-signature'])).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureValid(postback as ReceivedRequest)).toBe(false);
    expect(receiver.webhooks()[0]?.headers['x-signature']).toBeUndefined();
    expect(
      harness.sandbox.state.deliveries.find((entry) => entry.channel === 'postback')?.faults,
    ).toEqual(['badSignature']);
  });

  it('reorder: a held notification is sent after the next one', async () => {
    const { receiver, harness } = await setUp({ reorder: 1 });
    const { id } = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(id, 'PAGO');
    await harness.moveSale(id, 'MED');
    await harness.sandbox.idle();
    expect(receiver.webhooks().map((request) => bodyJson(request).status)).toEqual(['MED', 'PAGO']);
  });

  it('reorder: a held notification with no successor is sent after reorderMaxHoldMs', async () => {
    const { receiver, harness } = await setUp({ reorder: 1 }, { reorderMaxHoldMs: 30 });
    const { id } = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(id, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.webhooks()).toHaveLength(1);
  });

  it('delay: a delayed notification is overtaken by one sent after it, and logged as delayed', async () => {
    const { receiver, harness } = await setUp({ delay: 1, delayMinMs: 3000, delayMaxMs: 3000 });
    const delayed = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(delayed.id, 'PAGO');
    // The next notification is not delayed: it is sent, and arrives, first.
    expect((await harness.control('/faults', { delay: 0 })).status).toBe(200);
    const prompt = await harness.createSale(saleBody('PIX'));
    await harness.moveSale(prompt.id, 'PAGO');
    await harness.sandbox.idle();
    expect(receiver.webhooks().map((request) => bodyJson(request).id)).toEqual([
      prompt.id,
      delayed.id,
    ]);
    expect(
      harness.sandbox.state.deliveries.map((entry) => [entry.resourceId, entry.faults]),
    ).toEqual([
      [prompt.id, []],
      [delayed.id, ['delay']],
    ]);
  });

  it('makes the same decisions for the same seed', async () => {
    async function run(): Promise<string[]> {
      const started = await setUp({ duplicate: 0.4, drop: 0.3, badSignature: 0.5 });
      for (let n = 0; n < 6; n += 1) {
        const { id } = await started.harness.createSale(
          saleBody('PIX', { postbackUrl: started.receiver.postbackUrl }),
        );
        await started.harness.moveSale(id, 'PAGO');
        // One sale at a time keeps the log order independent of network timing.
        await started.harness.sandbox.idle();
      }
      await started.harness.sandbox.idle();
      const trace = started.harness.sandbox.state.deliveries.map(
        (entry) =>
          `${entry.resourceId}:${entry.channel}:${entry.outcome}:${entry.faults.join('+')}`,
      );
      await started.harness.close();
      await started.receiver.close();
      harness = undefined;
      receiver = undefined;
      return trace;
    }
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    expect(first.some((line) => line.includes('drop'))).toBe(true);
    expect(first.some((line) => line.includes('duplicate'))).toBe(true);
    expect(first.some((line) => line.endsWith(':'))).toBe(true);
  });
});

describe('createFaultInjector', () => {
  it('draws each delay within delayMinMs..delayMaxMs, both ends included', () => {
    const draws = [0, 0.5, 0.999_999];
    const injector = createFaultInjector({ delayMinMs: 100, delayMaxMs: 200 }, () =>
      Number(draws.shift()),
    );
    expect([injector.delayMs(), injector.delayMs(), injector.delayMs()]).toEqual([100, 150, 200]);
  });

  it('waits exactly delayMinMs when the range is one value, drawing nothing', () => {
    const injector = createFaultInjector({ delayMinMs: 80, delayMaxMs: 80 }, () => {
      throw new Error('drew a random number');
    });
    expect(injector.delayMs()).toBe(80);
  });
});
