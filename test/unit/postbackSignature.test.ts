import { createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  verifyPostbackSignature,
  worthReserialising,
} from '../../src/ingress/postbackSignature.js';
import { recordingReads } from '../support/recordingReads.js';

// Counts the constant-time comparisons, which stay the real ones.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, timingSafeEqual: vi.fn(crypto.timingSafeEqual) };
});

const SECRET = 'current-secret-0123456789';
const OLD_SECRET = 'previous-secret-0123456789';
const hmac = (body: string | Buffer, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');

describe('verifyPostbackSignature', () => {
  const compact = '{"id":1,"status":"PAGO","amount":"15000"}';

  it('accepts the HMAC of the raw bytes', () => {
    expect(verifyPostbackSignature(Buffer.from(compact), hmac(compact), [SECRET])).toBe(true);
  });

  it('falls back to the compact re-serialisation when the bytes were re-formatted', () => {
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect(verifyPostbackSignature(Buffer.from(pretty), hmac(compact), [SECRET])).toBe(true);
  });

  it('signs non-ASCII bodies over their UTF-8 bytes', () => {
    const body = Buffer.from('{"customerName":"João Ção ✓"}', 'utf8');
    expect(verifyPostbackSignature(body, hmac(body), [SECRET])).toBe(true);
    expect(verifyPostbackSignature(body, hmac(body.toString('latin1')), [SECRET])).toBe(false);
  });

  it('accepts any of several configured secrets (rotation)', () => {
    const body = Buffer.from(compact);
    expect(verifyPostbackSignature(body, hmac(compact, OLD_SECRET), [SECRET, OLD_SECRET])).toBe(
      true,
    );
    expect(verifyPostbackSignature(body, hmac(compact, OLD_SECRET), [SECRET])).toBe(false);
  });

  it('tries every configured secret, even after one matched (no early return)', () => {
    const secrets = [SECRET, OLD_SECRET, 'third-secret-0123456789'];
    const body = Buffer.from(compact);
    for (const [signature, accepted] of [
      [hmac(compact), true],
      [hmac(compact, 'someone-else'), false],
    ] as const) {
      const recorded = recordingReads(secrets);
      vi.mocked(timingSafeEqual).mockClear();
      expect(verifyPostbackSignature(body, signature, recorded.list)).toBe(accepted);
      expect(recorded.indicesRead()).toEqual([0, 1, 2]);
      expect(timingSafeEqual).toHaveBeenCalledTimes(3);
    }
  });

  it('rejects a wrong, short, long, missing or non-hex signature', () => {
    const body = Buffer.from(compact);
    const good = hmac(compact);
    expect(verifyPostbackSignature(body, hmac(compact, 'someone-else'), [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, good.slice(0, 63), [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, good + '0', [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, undefined, [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, '', [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, 'z'.repeat(64), [SECRET])).toBe(false);
    expect(verifyPostbackSignature(body, `sha256=${good}`, [SECRET])).toBe(false);
  });

  it('accepts an uppercase hex header: the same digest, another spelling', () => {
    expect(
      verifyPostbackSignature(Buffer.from(compact), hmac(compact).toUpperCase(), [SECRET]),
    ).toBe(true);
  });

  it('rejects everything when no secret is configured', () => {
    expect(verifyPostbackSignature(Buffer.from(compact), hmac(compact), [])).toBe(false);
  });

  it('never accepts a signature made with another secret, whatever the body', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ minLength: 1 }),
        (bytes, other) => {
          fc.pre(other !== SECRET);
          const body = Buffer.from(bytes);
          return !verifyPostbackSignature(body, hmac(body, other), [SECRET]);
        },
      ),
    );
  });
});

describe('the compact fallback is bounded (it runs before anything is authenticated)', () => {
  const compact = '{"id":1,"status":"PAGO","amount":"15000"}';
  it.each([
    ['a compact body', '{"id":1,"items":[{"a":1}]}', false],
    ['whitespace only inside strings', '{"name":"Ana Maria\\tSilva"}', false],
    ['whitespace between tokens', '{ "id": 1 }', true],
    ['32 levels with whitespace', `${'['.repeat(32)} 1${']'.repeat(32)}`, true],
    ['33 levels', `${'['.repeat(33)} 1${']'.repeat(33)}`, false],
    ['40 arrays side by side, 2 levels deep', `[ ${'[1],'.repeat(39)}[1] ]`, true],
    ['brackets inside strings do not count', `{"x": "${'['.repeat(40)}"}`, true],
    ['an escaped quote keeps the string open', '{"x":"a\\" [[[ "}', false],
    ['a string ends after an escaped quote', '{"x":"a\\"b", "y":1}', true],
    ['a string ends after an escaped backslash', '{"x":"a\\\\", "y":1}', true],
    ['an empty string', '{"": 1}', true],
  ])('%s: re-serialise = %s', (_name, body, expected) => {
    expect(worthReserialising(Buffer.from(body))).toBe(expected);
  });

  it('never parses a deeply nested body with a wrong signature', () => {
    const body = Buffer.from(`${'[ '.repeat(20_000)}1${' ]'.repeat(20_000)}`);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(verifyPostbackSignature(body, 'ab'.repeat(32), [SECRET])).toBe(false);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('never parses a compact body with a wrong signature', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(verifyPostbackSignature(Buffer.from(compact), 'ab'.repeat(32), [SECRET])).toBe(false);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });
});
