/**
 * Sandbox API keys. docs/gateway.md 5: both keys start with the same fixed, service-specific
 * prefix.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SANDBOX_KEY_PREFIX = 'sbx_';

export interface KeyPair {
  readonly publicKey: string;
  readonly privateKey: string;
}

export function generateKeyPair(): KeyPair {
  return {
    publicKey: `${SANDBOX_KEY_PREFIX}pk_${randomBytes(16).toString('hex')}`,
    privateKey: `${SANDBOX_KEY_PREFIX}sk_${randomBytes(24).toString('hex')}`,
  };
}

/** Constant-time comparison that does not leak the expected length. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}
