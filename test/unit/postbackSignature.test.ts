import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyPostbackSignature } from '../../src/ingress/postbackSignature.js';

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
