import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import { createTokenComparison, presentedToken } from './adminToken.js';
import { createAuthFailureLimiter } from './authFailureLimiter.js';
import { sourceAddressOf } from './webhookAuth.js';

/** Wrong tokens one source may present per window before it is refused without a check. */
export const ADMIN_FAILURES_MAX = 10;
const ADMIN_FAILURES_WINDOW_MS = 15 * 60_000;

export interface AdminGateOptions {
  readonly token: string;
  /** TRUSTED_PROXY_COUNT: which X-Forwarded-For entry is the client. */
  readonly trustedProxies: number;
}

/** What the gate says of one presented token. */
export type AdminVerdict =
  | { readonly kind: 'admitted' }
  /** No token, or a wrong one: 401. */
  | { readonly kind: 'refused' }
  /** This source presented too many wrong tokens: 429 for the rest of the window. */
  | { readonly kind: 'blocked'; readonly retryAfterSeconds: number };

/**
 * The one check of ADMIN_TOKEN, shared by every admin route of a listener (bull-board, the
 * console and its login form), so that wrong guesses count once whichever route they try.
 */
export interface AdminGate {
  /** `presented`: the token as sent (null: none was). */
  check(req: Request, presented: string | null): AdminVerdict;
  /** The token in an `Authorization: Bearer` or Basic (token as the password) header. */
  presentedToken(headers: IncomingHttpHeaders): string | null;
}

export function createAdminGate(options: AdminGateOptions): AdminGate {
  const compare = createTokenComparison(options.token);
  const failures = createAuthFailureLimiter({
    maxFailures: ADMIN_FAILURES_MAX,
    windowMs: ADMIN_FAILURES_WINDOW_MS,
  });
  return {
    check(req, presented) {
      // The right token first: an address shared with someone guessing (a NAT, a proxy) never
      // locks the operator out. Only wrong tokens are limited.
      const credential = compare(presented);
      if (credential === 'right') return { kind: 'admitted' };
      const source = sourceAddressOf(req, options.trustedProxies);
      if (failures.isBlocked(source)) {
        return { kind: 'blocked', retryAfterSeconds: failures.retryAfterSeconds(source) };
      }
      // Only a wrong token counts: a browser's first, credential-less request is not a guess.
      if (credential === 'wrong') failures.recordFailure(source);
      return { kind: 'refused' };
    },
    presentedToken: (headers) => presentedToken(headers.authorization),
  };
}
