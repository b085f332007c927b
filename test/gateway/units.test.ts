import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MoneyError, reaisNumberFromCents } from '../../src/domain/money.js';
import { classifyErrorBody } from '../../src/gateway/errorBody.js';
import { createGatewayClient, DEFAULT_RETRY_POLICY } from '../../src/gateway/index.js';
import { createRedactor } from '../../src/gateway/redact.js';
import { cashoutBody } from '../../src/gateway/requestBodies.js';
import { retryDelayMs } from '../../src/gateway/retry.js';
import { parseRetryAfter } from '../../src/gateway/retryAfter.js';
import { parseShipping } from '../../src/gateway/toDomain.js';
import { PRIVATE_KEY, PUBLIC_KEY } from './fakeGateway.js';

describe('classifyErrorBody (docs/gateway.md 2.4)', () => {
  it.each([
    [
      '{"message":"Saldo insuficiente","errorType":"INSUFFICIENT_BALANCE"}',
      'A',
      'Saldo insuficiente',
      'INSUFFICIENT_BALANCE',
      null,
    ],
    ['{"message":"Sem errorType"}', 'A', 'Sem errorType', null, null],
    ['{"message":"Erro interno","error":"boom"}', 'B', 'Erro interno', null, null],
    ['{"message":"","error":"only the description"}', 'B', 'only the description', null, null],
    [
      '{"success":false,"error":{"code":"UNAUTHORIZED","message":"Chaves inválidas"}}',
      'C',
      'Chaves inválidas',
      null,
      'UNAUTHORIZED',
    ],
    [
      '{"success":false,"error":{"code":"FORBIDDEN","message":"Proibido"}}',
      'C',
      'Proibido',
      null,
      'FORBIDDEN',
    ],
    ['<html>502</html>', 'unknown', null, null, null],
    ['', 'unknown', null, null, null],
    ['null', 'unknown', null, null, null],
    ['{"error":"no message"}', 'unknown', null, null, null],
  ])('%s → shape %s', (text, shape, message, errorType, code) => {
    expect(classifyErrorBody(text)).toEqual({ shape, message, errorType, code });
  });

  it('bounds a very long message', () => {
    const body = classifyErrorBody(JSON.stringify({ message: 'x'.repeat(5000), error: 'e' }));
    expect(body.message?.length).toBeLessThanOrEqual(501);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-20T10:00:00.000Z');
  it.each([
    [null, null],
    ['1', 1],
    [' 120 ', 120],
    ['0', 0],
    ['Fri, 20 Nov 2026 10:00:30 GMT', 30],
    ['Fri, 20 Nov 2026 09:00:00 GMT', 0],
    ['-5', null],
    ['1.5', null],
    ['soon', null],
  ])('%s → %s', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });
});

describe('retryDelayMs', () => {
  const policy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 10_000 };

  it('is random() × min(maxDelay, base × 2^n)', () => {
    expect(retryDelayMs(0, null, policy, () => 1)).toBe(250);
    expect(retryDelayMs(1, null, policy, () => 1)).toBe(500);
    expect(retryDelayMs(3, null, policy, () => 0.5)).toBe(1000);
    expect(retryDelayMs(10, null, policy, () => 1)).toBe(10_000);
    expect(retryDelayMs(2, null, policy, () => 0)).toBe(0);
  });

  it('never waits less than Retry-After (capped at 60 s), nor outside [0, ceiling]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.option(fc.integer({ min: 0, max: 100_000 })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, retryAfter, r) => {
          const delay = retryDelayMs(n, retryAfter, policy, () => r);
          const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
          expect(delay).toBeGreaterThanOrEqual(0);
          if (retryAfter === null) expect(delay).toBeLessThanOrEqual(ceiling);
          else {
            expect(delay).toBeGreaterThanOrEqual(Math.min(retryAfter * 1000, 60_000));
            expect(delay).toBeLessThanOrEqual(Math.max(ceiling, 60_000));
          }
        },
      ),
    );
  });

  it('defaults: 4 tries, 250 ms base, 10 s maximum', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ attempts: 4, baseDelayMs: 250, maxDelayMs: 10_000 });
  });
});

describe('cashoutBody', () => {
  it('writes amount as the exact decimal of reais for every whole number of centavos', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_00 }), (cents) => {
        const body = cashoutBody({ amountCents: cents, pixKey: 'k' });
        const expected = `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
          .replace(/0+$/, '')
          .replace(/\.$/, '');
        expect(body).toBe(`{"amount":${expected},"pixKey":"k"}`);
        expect((JSON.parse(body) as { amount: number }).amount).toBe(reaisNumberFromCents(cents));
      }),
    );
  });

  it('refuses fractional or negative centavos', () => {
    expect(() => cashoutBody({ amountCents: 0.5, pixKey: 'k' })).toThrow(MoneyError);
    expect(() => cashoutBody({ amountCents: -100, pixKey: 'k' })).toThrow(MoneyError);
  });
});

describe('parseShipping', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['not json', 'not json'],
    [null, null],
    [undefined, null],
    [{ already: 'object' }, { already: 'object' }],
  ])('%s', (input, expected) => {
    expect(parseShipping(input)).toEqual(expected);
  });
});

describe('createRedactor', () => {
  it('removes every occurrence of every secret', () => {
    const redact = createRedactor([PUBLIC_KEY, PRIVATE_KEY, '']);
    expect(redact(`${PUBLIC_KEY}:${PRIVATE_KEY}:${PRIVATE_KEY}`)).toBe(
      '[redacted]:[redacted]:[redacted]',
    );
  });
});

describe('createGatewayClient options', () => {
  const valid = {
    baseUrl: 'https://gateway.example.com',
    publicKey: PUBLIC_KEY,
    privateKey: PRIVATE_KEY,
  };

  it.each([
    ['a relative baseUrl', { baseUrl: '/api' }, TypeError],
    ['a non-http baseUrl', { baseUrl: 'ftp://gateway.example.com' }, TypeError],
    ['an empty public key', { publicKey: '' }, TypeError],
    ['a private key with a newline', { privateKey: `${PRIVATE_KEY}\r\nX-Evil: 1` }, TypeError],
    ['a zero timeout', { timeoutMs: 0 }, RangeError],
    ['zero attempts', { retry: { attempts: 0 } }, RangeError],
    ['a negative base delay', { retry: { baseDelayMs: -1 } }, RangeError],
  ])('refuses %s without echoing the keys', (_label, override, kind) => {
    let thrown: unknown;
    try {
      createGatewayClient({ ...valid, ...override });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(kind);
    expect(String(thrown)).not.toContain(PRIVATE_KEY);
    expect(String(thrown)).not.toContain(PUBLIC_KEY);
  });

  it('accepts the defaults', () => {
    expect(() => createGatewayClient(valid)).not.toThrow();
  });
});
