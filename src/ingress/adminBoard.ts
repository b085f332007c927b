import type { Queue } from 'bullmq';
import type { Express, NextFunction, Request, Response } from 'express';
import type { AdminGate } from './adminGate.js';

const ADMIN_PATH = '/admin/queues';

export interface AdminBoardOptions {
  readonly queues: readonly Queue[];
  /** Retry, clean, remove, pause and the like; off by default (ADMIN_WRITE). */
  readonly write: boolean;
}

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/**
 * bull-board behind the admin token (`gate`): `Authorization: Bearer <ADMIN_TOKEN>`, or HTTP
 * basic auth with the token as the password (what a browser can send). Mounted only when a
 * token is set, and loaded on the first authenticated request: a process nobody browses does
 * not carry it. Read-only unless `write` (a leaked token then shows jobs but cannot delete or
 * replay them), never framed (clickjacking), and a source that keeps guessing wrong tokens is
 * refused (the right token is always accepted).
 */
export function mountAdminBoard(app: Express, gate: AdminGate, options: AdminBoardOptions): void {
  let board: Promise<Handler> | null = null;
  app.use(ADMIN_PATH, neverFramed, requireToken(gate), (req, res, next) => {
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
  // bull-board serves from an Express app of its own, which announces itself by default.
  const board = serverAdapter.getRouter() as Handler & { disable(setting: string): unknown };
  board.disable('x-powered-by');
  return board;
}

function neverFramed(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('content-security-policy', "frame-ancestors 'none'");
  res.setHeader('x-frame-options', 'DENY');
  next();
}

function requireToken(gate: AdminGate) {
  return (req: Request, res: Response, next: NextFunction) => {
    const verdict = gate.check(req, gate.presentedToken(req.headers));
    switch (verdict.kind) {
      case 'admitted':
        next();
        return;
      case 'blocked':
        res.setHeader('retry-after', String(verdict.retryAfterSeconds));
        res.status(429).json({ error: 'too many wrong admin tokens from this address' });
        return;
      case 'refused':
        res.setHeader('www-authenticate', 'Basic realm="paymirror admin"');
        res.status(401).json({ error: 'admin token required' });
        return;
    }
  };
}
