import type { Queue } from 'bullmq';
import type { Express, NextFunction, Request, Response } from 'express';
import { createAdminTokenCheck } from './adminToken.js';
import { createAuthFailureLimiter } from './authFailureLimiter.js';
import { sourceAddressOf } from './webhookAuth.js';

export const ADMIN_PATH = '/admin/queues';

/** Wrong tokens one source may present per window before it is refused without a check. */
export const ADMIN_FAILURES_MAX = 10;
export const ADMIN_FAILURES_WINDOW_MS = 15 * 60_000;

export interface AdminBoardOptions {
  readonly token: string;
  readonly queues: readonly Queue[];
  /** Retry, clean, remove, pause and the like; off by default (ADMIN_WRITE). */
  readonly write: boolean;
  /** TRUSTED_PROXY_COUNT: which X-Forwarded-For entry is the client. */
  readonly trustedProxies: number;
}

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/**
 * bull-board behind a token (adminToken.ts: bearer, or basic auth's password). Mounted only when
 * a token is set, and loaded on the first authenticated request: a process nobody browses does
 * not carry it.
 * Read-only unless `write` (a leaked token then shows jobs but cannot delete or replay them),
 * never framed (clickjacking), and a source that keeps guessing wrong tokens is refused (the
 * right token is always accepted).
 */
export function mountAdminBoard(app: Express, options: AdminBoardOptions): void {
  let board: Promise<Handler> | null = null;
  app.use(ADMIN_PATH, neverFramed, requireToken(options), (req, res, next) => {
    board ??= loadBoard(options.queues, options.write).catch((error: unknown) => {
      board = null;
      throw error;
    });
    board.then((handle) => handle(req, res, next), next);
  });
}

async function loadBoard(queues: readonly Queue[], write: boolean): Promise<Handler> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: !write })),
    serverAdapter,
  });
  return serverAdapter.getRouter() as Handler;
}

function neverFramed(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('content-security-policy', "frame-ancestors 'none'");
  res.setHeader('x-frame-options', 'DENY');
  next();
}

function requireToken(options: AdminBoardOptions) {
  const check = createAdminTokenCheck(options.token);
  const failures = createAuthFailureLimiter({
    maxFailures: ADMIN_FAILURES_MAX,
    windowMs: ADMIN_FAILURES_WINDOW_MS,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // The right token first: an address shared with someone guessing (a NAT, a proxy) never
    // locks the operator out. Only wrong tokens are limited.
    const credential = check(req.headers.authorization);
    if (credential === 'right') {
      next();
      return;
    }
    const source = sourceAddressOf(req, options.trustedProxies);
    if (failures.isBlocked(source)) {
      res.setHeader('retry-after', String(failures.retryAfterSeconds(source)));
      res.status(429).json({ error: 'too many wrong admin tokens from this address' });
      return;
    }
    // Only a wrong token counts: a browser's first, credential-less request is not a guess.
    if (credential === 'wrong') failures.recordFailure(source);
    res.setHeader('www-authenticate', 'Basic realm="paymirror admin"');
    res.status(401).json({ error: 'admin token required' });
  };
}
