/**
 * docs/gateway.md 6.4: X-Signature is the lowercase hex HMAC-SHA256 of the exact JSON bytes sent.
 */
import { createHmac } from 'node:crypto';

export function signPostbackBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** What the badSignature fault sends: a well-formed signature made with the wrong key. */
export function forgePostbackSignature(secret: string, body: string): string {
  return signPostbackBody(`${secret}:not-the-secret`, body);
}
