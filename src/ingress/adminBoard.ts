import { createHash, timingSafeEqual } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Express, NextFunction, Request, Response } from 'express';

export const ADMIN_PATH = '/admin/queues';

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/**
 * bull-board behind a token: `Authorization: Bearer <ADMIN_TOKEN>`, or HTTP basic auth with
 * the token as the password (what a browser can send). Mounted only when a token is set, and
 * loaded on the first authenticated request: a process nobody browses does not carry it.
 */
export function mountAdminBoard(app: Express, token: string, queues: readonly Queue[]): void {
  let board: Promise<Handler> | null = null;
  app.use(ADMIN_PATH, requireToken(token), (req, res, next) => {
    board ??= loadBoard(queues).catch((error: unknown) => {
      board = null;
      throw error;
    });
    board.then((handle) => handle(req, res, next), next);
  });
}

async function loadBoard(queues: readonly Queue[]): Promise<Handler> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter });
  return serverAdapter.getRouter() as Handler;
}

function requireToken(token: string) {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    const presented = presentedToken(req.headers.authorization);
    if (presented !== null && timingSafeEqual(digest(presented), expected)) {
      next();
      return;
    }
    res.setHeader('www-authenticate', 'Basic realm="paymirror admin"');
    res.status(401).json({ error: 'admin token required' });
  };
}

function presentedToken(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, value = ''] = header.split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  return null;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
