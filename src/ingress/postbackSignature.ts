import { createHmac, timingSafeEqual } from 'node:crypto';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * docs/gateway.md 6.4: `X-Signature` is the hex HMAC-SHA256 of the compact JSON body. We verify the
 * raw bytes first (what was actually sent), then `JSON.stringify(JSON.parse(body))` in case a proxy
 * re-formatted the body. Every configured secret is tried (rotation), each in constant time.
 */
export function verifyPostbackSignature(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  secrets: readonly string[],
): boolean {
  if (signatureHeader === undefined || !HEX_SHA256.test(signatureHeader)) return false;
  const expected = Buffer.from(signatureHeader, 'hex');
  if (matchesAny(rawBody, expected, secrets)) return true;
  const compact = compactJson(rawBody);
  return compact !== null && !compact.equals(rawBody) && matchesAny(compact, expected, secrets);
}

export function signPostback(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function matchesAny(body: Buffer, expected: Buffer, secrets: readonly string[]): boolean {
  let matched = false;
  for (const secret of secrets) {
    const actual = createHmac('sha256', secret).update(body).digest();
    // No early return: every secret costs the same, whichever one matches.
    matched = timingSafeEqual(actual, expected) || matched;
  }
  return matched;
}

function compactJson(rawBody: Buffer): Buffer | null {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(rawBody.toString('utf8'))), 'utf8');
  } catch {
    return null;
  }
}
