/**
 * Options: the CLI schema, createSandbox's own validation, key generation, PIX expiry,
 * listen/close.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  createSandbox,
  generateKeyPair,
  SANDBOX_KEY_PREFIX,
  sandboxOptionsSchema,
  SandboxOptionsError,
} from '../../src/sandbox/index.js';
import type { SandboxLogger } from '../../src/sandbox/index.js';
import { saleBody, startHarness, waitFor } from './support/harness.js';
import { bodyJson, startReceiver } from './support/receiver.js';
import { saleCreatedSchema } from './support/specSchemas.js';

describe('generateKeyPair', () => {
  it('gives a public and a private key sharing one prefix', () => {
    const keys = generateKeyPair();
    expect(keys.publicKey.startsWith(SANDBOX_KEY_PREFIX)).toBe(true);
    expect(keys.privateKey.startsWith(SANDBOX_KEY_PREFIX)).toBe(true);
    expect(keys.publicKey).not.toBe(keys.privateKey);
    expect(generateKeyPair().privateKey).not.toBe(keys.privateKey);
  });
});

describe('sandboxOptionsSchema (CLI)', () => {
  const keys = generateKeyPair();
  const valid = {
    ...keys,
    postbackSecret: 'secret',
    userId: '17',
    port: '4000',
    initialBalance: '1500.50',
  };

  it('coerces command-line strings and converts the initial balance to centavos', () => {
    expect(sandboxOptionsSchema.parse(valid)).toEqual({
      ...keys,
      postbackSecret: 'secret',
      userId: 17,
      port: 4000,
      host: '127.0.0.1',
      webhookUrl: null,
      initialBalanceCents: 150_050,
    });
  });

  it('defaults the initial balance to zero and treats an empty webhook URL as none', () => {
    const parsed = sandboxOptionsSchema.parse({
      ...valid,
      initialBalance: undefined,
      webhookUrl: '',
    });
    expect(parsed.initialBalanceCents).toBe(0);
    expect(parsed.webhookUrl).toBeNull();
  });

  it.each([
    ['a balance with 3 decimals', { initialBalance: '10.001' }],
    ['a negative balance', { initialBalance: '-5' }],
    ['a key without the prefix', { publicKey: 'pk_live_0123456789abcdef' }],
    ['a port out of range', { port: '70000' }],
    ['a user id that is not a number', { userId: 'abc' }],
    ['a webhook URL that is not http(s)', { webhookUrl: 'file:///etc/passwd' }],
    ['an empty postback secret', { postbackSecret: '' }],
  ])('rejects %s', (_case, overrides) => {
    expect(sandboxOptionsSchema.safeParse({ ...valid, ...overrides }).success).toBe(false);
  });
});

describe('createSandbox options', () => {
  it('throws SandboxOptionsError for invalid options', () => {
    const keys = generateKeyPair();
    expect(() => createSandbox({ ...keys, postbackSecret: 's', userId: 0 })).toThrow(
      SandboxOptionsError,
    );
    expect(() =>
      createSandbox({ ...keys, postbackSecret: 's', userId: 1, faults: { drop: 3 } }),
    ).toThrow(SandboxOptionsError);
    expect(() =>
      createSandbox({ ...keys, postbackSecret: 's', userId: 1, initialBalanceCents: 1.5 }),
    ).toThrow(SandboxOptionsError);
  });

  it('accepts a pino logger', async () => {
    const logger: SandboxLogger = pino({ level: 'silent' });
    const sandbox = createSandbox({ ...generateKeyPair(), postbackSecret: 's', userId: 1, logger });
    const { url } = await sandbox.listen(0);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    await expect(sandbox.listen(0)).rejects.toThrow(/already listening/);
    await sandbox.close();
  });
});

describe('PIX expiry', () => {
  it('cancels an unpaid PIX sale when its charge expires, and notifies CANCELADO', async () => {
    const receiver = await startReceiver();
    const harness = await startHarness({ webhookUrl: receiver.webhookUrl, pixExpiryMs: 40 });
    try {
      const { id, answer } = await harness.createSale(saleBody('PIX'));
      const { sale } = saleCreatedSchema.parse(answer.body);
      expect(Date.parse(sale.payment.pix?.expiresAt ?? '') - Date.parse(sale.createdAt)).toBe(40);
      await waitFor(
        () => harness.sandbox.state.sales.get(id)?.status === 'CANCELADO',
        'the PIX charge to expire',
      );
      await harness.sandbox.idle();
      expect(receiver.webhooks().map((request) => bodyJson(request).status)).toEqual(['CANCELADO']);
    } finally {
      await harness.close();
      await receiver.close();
    }
  });

  it('does not cancel a sale paid before expiry, and answers expiresAt null when PIX does not expire', async () => {
    // Long enough for the payment below to land first; timers of equal delay fire in order,
    // so once the later charge has expired the first one's timer would have fired too.
    const harness = await startHarness({ pixExpiryMs: 400 });
    const never = await startHarness({ pixExpiryMs: null });
    try {
      const { id } = await harness.createSale(saleBody('PIX'));
      expect((await harness.moveSale(id, 'PAGO')).status).toBe(200);
      const { answer } = await never.createSale(saleBody('PIX'));
      expect(saleCreatedSchema.parse(answer.body).sale.payment.pix?.expiresAt).toBeNull();
      const later = (await harness.createSale(saleBody('PIX'))).id;
      await waitFor(
        () => harness.sandbox.state.sales.get(later)?.status === 'CANCELADO',
        'a later charge to expire',
      );
      expect(harness.sandbox.state.sales.get(id)?.status).toBe('PAGO');
    } finally {
      await harness.close();
      await never.close();
    }
  });
});
