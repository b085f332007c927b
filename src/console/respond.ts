import type { NextFunction, Request, Response } from 'express';
import { documentText, type SafeHtml } from './html.js';

/**
 * Scripts and styles only from the console's own files (no inline script or style, no eval),
 * nothing from elsewhere, never framed, forms posted only to itself.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Every console answer, pages and files alike. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the
  // console's own form posts, which sameOrigin (auth.ts) refuses.
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  next();
}

export function sendPage(res: Response, status: number, document: SafeHtml): void {
  // What the mirror says now: never kept by the browser or a proxy.
  res.setHeader('cache-control', 'no-store');
  res.status(status).type('html').send(documentText(document));
}

export function sendCsv(res: Response, name: string, text: string): void {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-disposition', `attachment; filename="paymirror-${name}.csv"`);
  res.status(200).type('text/csv; charset=utf-8').send(text);
}
