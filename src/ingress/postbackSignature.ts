import { createHmac, timingSafeEqual } from 'node:crypto';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** Deeper than any notification (they nest 3 levels): past it, no re-serialisation is tried. */
const MAX_FALLBACK_DEPTH = 32;

/**
 * docs/gateway.md 6.4: `X-Signature` is the hex HMAC-SHA256 of the compact JSON body. We verify the
 * raw bytes first (what was actually sent), then `JSON.stringify(JSON.parse(body))` in case a proxy
 * re-formatted the body. Every configured secret is tried (rotation), each in constant time.
 * The fallback is bounded, since it runs before anything is authenticated: only for a body
 * with whitespace between tokens (a compact one re-serialises to itself), nested at most
 * MAX_FALLBACK_DEPTH deep (found by one pass over the bytes, before any parse).
 */
export function verifyPostbackSignature(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  secrets: readonly string[],
): boolean {
  // A missing header reads "undefined": not 64 hex digits either.
  const header = String(signatureHeader);
  if (!HEX_SHA256.test(header)) return false;
  const expected = Buffer.from(header, 'hex');
  if (matchesAny(rawBody, expected, secrets)) return true;
  if (!worthReserialising(rawBody)) return false;
  const compact = compactJson(rawBody);
  return compact !== null && !compact.equals(rawBody) && matchesAny(compact, expected, secrets);
}

/** Whitespace between tokens, and nesting within MAX_FALLBACK_DEPTH: one pass, no allocation. */
export function worthReserialising(body: Buffer): boolean {
  let depth = 0;
  let loose = false;
  let inString = false;
  let escaped = false;
  for (let i = 0; i !== body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) inString = false;
      continue;
    }
    switch (byte) {
      case 0x22:
        inString = true;
        break;
      case 0x7b: // {
      case 0x5b: // [
        if (++depth > MAX_FALLBACK_DEPTH) return false;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        depth--;
        break;
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        loose = true;
        break;
    }
  }
  return loose;
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
    return Buffer.from(JSON.stringify(JSON.parse(rawBody.toString('utf8'))));
  } catch {
    return null;
  }
}
