import type { RequestListener } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../log/logger.js';
import type { ConsoleSources } from '../console/pageContext.js';
import { mountConsole } from '../console/mount.js';
import { mountAdminBoard, type AdminBoardOptions } from './adminBoard.js';
import { createAdminGate } from './adminGate.js';
import type { Metrics } from '../metrics/metrics.js';
import type { IngestDeps } from './ingest.js';
import {
  createNotificationRoutes,
  plainNotificationRoute,
  type NotificationRoutes,
} from './notificationRoutes.js';
import { NOT_FOUND, type HttpAnswer } from './outcome.js';

interface ReadinessCheck {
  /** checks: name → null when healthy, else what is wrong; notes: said, not judged. */
  check(): Promise<{ checks: Record<string, string | null>; notes?: Record<string, string> }>;
}

export interface HttpAppDeps {
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly readiness: ReadinessCheck;
  /** Only the ingress role serves the notification routes. */
  readonly ingest: IngestDeps | null;
  /** bull-board at /admin/queues and the console at /console, when ADMIN_TOKEN is set. */
  readonly admin: AdminRoutesOptions | null;
  /** Serve /metrics and the admin routes here: the admin listener, or PORT's when shared. */
  readonly operations: boolean;
}

interface AdminRoutesOptions {
  readonly token: string;
  /** TRUSTED_PROXY_COUNT: which X-Forwarded-For entry is the client. */
  readonly trustedProxies: number;
  readonly board: AdminBoardOptions;
  readonly console: ConsoleSources;
}

/**
 * The server's request listener. The two notification routes in their plain form (`POST
 * /postbacks`, `POST /webhooks/<token>`) are answered on node:http directly: they read their own
 * raw body and need nothing of Express, whose routing and res.json are a tenth of the ingress's
 * CPU. Every other request goes to the Express app, those routes' other spellings too (a query
 * string, a trailing slash, other letter case), and gets the same answer from the same code.
 */
export function createRequestListener(deps: HttpAppDeps): RequestListener {
  const routes = deps.ingest
    ? createNotificationRoutes(deps.ingest, deps.metrics, deps.logger)
    : null;
  const app = createHttpApp(deps, routes);
  if (!routes) return app;
  return (req, res) => {
    const route = plainNotificationRoute(req.method, req.url);
    if (route === null) app(req, res);
    else if (route.channel === 'postback') routes.postback(req, res);
    else routes.webhook(req, res, route.token);
  };
}

/**
 * The HTTP surface of every role. The notification routes read their own raw body (no body
 * parser, no per-request middleware) because the signature is computed over the exact bytes.
 */
function createHttpApp(deps: HttpAppDeps, routes: NotificationRoutes | null): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  if (routes) {
    app.post('/postbacks', (req, res) => routes.postback(req, res));
    app.post('/webhooks/:token', (req, res) => routes.webhook(req, res, req.params.token));
  }

  app.get('/healthz', (_req, res) => {
    send(res, { status: 200, body: { status: 'ok' } });
  });
  app.get('/readyz', (_req, res) => {
    void deps.readiness.check().then(({ checks, notes }) => {
      const ready = Object.values(checks).every((problem) => problem === null);
      const body = Object.fromEntries(
        Object.entries(checks).map(([name, problem]) => [name, problem ?? 'ok']),
      );
      send(res, {
        status: ready ? 200 : 503,
        body: { status: ready ? 'ready' : 'not ready', ...body, ...notes },
      });
    });
  });
  if (deps.operations) mountOperations(app, deps);
  app.use((_req, res) => send(res, NOT_FOUND));
  // Errors Express meets before any handler runs: in practice a path parameter it cannot
  // percent-decode (`/webhooks/<token>%zz`). Such a token equals no configured one: the same 404
  // as any unknown token. Never Express's default handler, which answers HTML and prints the
  // error, raw path segment (perhaps a real token) included, to stderr past the log scrubbing.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof URIError) {
      send(res, NOT_FOUND);
      return;
    }
    deps.logger.error({ err: error }, 'unexpected http failure');
    send(res, { status: 500, body: { error: 'internal error' } });
  });
  return app;
}

function mountOperations(app: Express, deps: HttpAppDeps): void {
  app.get('/metrics', (_req, res) => {
    void deps.metrics.registry.metrics().then(
      (text) => void res.status(200).type(deps.metrics.registry.contentType).send(text),
      (error: unknown) => {
        deps.logger.warn({ err: error }, 'metrics scrape failed');
        send(res, { status: 500, body: { error: 'metrics unavailable' } });
      },
    );
  });
  if (deps.admin) {
    // One gate for both: a wrong token counts once, whichever of them it was tried on.
    const { token, trustedProxies } = deps.admin;
    const gate = createAdminGate({ token, trustedProxies });
    mountAdminBoard(app, gate, deps.admin.board);
    mountConsole(app, { token, gate, trustedProxies, sources: deps.admin.console });
  }
}

function send(res: Response, answer: HttpAnswer): void {
  if (res.headersSent) return;
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.json(answer.body);
}
