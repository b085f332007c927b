import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/**
 * The console's sign-in cookie: not the token, but a value signed with a key derived from it
 * (issued-at seconds, and an HMAC of them). It expires on its own, any process holding the same
 * ADMIN_TOKEN accepts it, and changing the token signs everyone out. HttpOnly (no script reads
 * it), SameSite=Strict (no other site's page sends it), Secure when the request came over HTTPS.
 */
const SESSION_COOKIE = 'paymirror_console';
export const SESSION_SECONDS = 12 * 60 * 60;

function sessionKey(token: string): Buffer {
  return createHmac('sha256', token).update('paymirror console session v1').digest();
}

function signature(token: string, issuedAt: number): string {
  return createHmac('sha256', sessionKey(token)).update(`v1.${issuedAt}`).digest('base64url');
}

export function issueSession(token: string, nowSeconds: number): string {
  return `${nowSeconds}.${signature(token, nowSeconds)}`;
}

export function sessionIsValid(token: string, value: string | null, nowSeconds: number): boolean {
  if (value === null) return false;
  const match = /^([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  if (issuedAt > nowSeconds + 60 || nowSeconds - issuedAt > SESSION_SECONDS) return false;
  const expected = Buffer.from(signature(token, issuedAt));
  const presented = Buffer.from(match[2] ?? '');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The cookie's value in a Cookie header, or null. */
export function sessionCookieOf(headers: IncomingHttpHeaders): string | null {
  for (const part of (headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return null;
}

export function sessionCookie(value: string, secure: boolean): string {
  return cookie(value, SESSION_SECONDS, secure);
}

export function expiredSessionCookie(secure: boolean): string {
  return cookie('', 0, secure);
}

function cookie(value: string, maxAge: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/console',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/**
 * Whether the browser reached us over HTTPS: this socket is TLS, or the proxy in front of us
 * (trusted when TRUSTED_PROXY_COUNT > 0) says its client came over HTTPS.
 */
export function cameOverHttps(req: IncomingMessage, trustedProxies: number): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
  if (trustedProxies === 0) return false;
  const forwarded = req.headers['x-forwarded-proto'];
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''))
    .split(',')
    .pop()
    ?.trim()
    .toLowerCase();
  return last === 'https';
}
