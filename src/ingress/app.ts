import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Queue } from 'bullmq';
import type { Logger } from '../log/logger.js';
import { mountAdminBoard } from './adminBoard.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Channel } from '../notifications/notification.js';
import { ingestPostback, ingestWebhook, type IngestDeps } from './ingest.js';
import { answerFor, NOT_FOUND, type HttpAnswer, type IngestOutcome } from './outcome.js';

export interface ReadinessCheck {
  /** checks: name → null when healthy, else what is wrong; notes: said, not judged. */
  check(): Promise<{ checks: Record<string, string | null>; notes?: Record<string, string> }>;
}

export interface HttpAppDeps {
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly readiness: ReadinessCheck;
  /** Only the ingress role serves the notification routes. */
  readonly ingest: IngestDeps | null;
  /** bull-board at /admin/queues, when ADMIN_TOKEN is set. */
  readonly admin: { readonly token: string; readonly queues: readonly Queue[] } | null;
}

/**
 * The HTTP surface of every role. The notification routes read their own raw body (no body
 * parser, no per-request middleware) because the signature is computed over the exact bytes.
 */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  const ingest = deps.ingest;
  if (ingest) {
    app.post('/postbacks', (req, res) => {
      void ingestPostback(req, ingest).then(
        (outcome) => respond(res, '/postbacks', 'postback', outcome, deps),
        (error: unknown) => failed(res, ingest, error),
      );
    });
    app.post('/webhooks/:token', (req, res) => {
      void ingestWebhook(req, req.params.token, ingest).then(
        (outcome) => respond(res, '/webhooks/:token', 'webhook', outcome, deps),
        (error: unknown) => failed(res, ingest, error),
      );
    });
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
  app.get('/metrics', (_req, res) => {
    void deps.metrics.registry.metrics().then(
      (text) => void res.status(200).type(deps.metrics.registry.contentType).send(text),
      (error: unknown) => {
        deps.logger.warn({ err: error }, 'metrics scrape failed');
        send(res, { status: 500, body: { error: 'metrics unavailable' } });
      },
    );
  });
  if (deps.admin) mountAdminBoard(app, deps.admin.token, deps.admin.queues);
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

function respond(
  res: Response,
  route: string,
  channel: Channel,
  outcome: IngestOutcome,
  deps: HttpAppDeps,
): void {
  if (outcome.kind === 'rejected') {
    // The route, never the URL: a webhook URL carries the token.
    deps.logger.warn(
      { route, channel, reason: outcome.reason, source: res.req.socket.remoteAddress },
      'delivery rejected',
    );
  }
  if (outcome.kind === 'accepted') deps.metrics.markAccepted();
  deps.metrics.deliveries.inc({
    channel,
    outcome: outcome.kind,
    reason: outcome.kind === 'rejected' ? outcome.reason : '',
  });
  const answer = answerFor(outcome);
  if (outcome.kind === 'rejected' && outcome.reason === 'body_too_large') {
    // The rest of the body was not read: do not keep the connection for another request.
    res.setHeader('connection', 'close');
  }
  send(res, answer);
}

function failed(res: Response, deps: IngestDeps, error: unknown): void {
  deps.logger.error({ err: error }, 'unexpected ingress failure');
  send(res, { status: 500, body: { error: 'internal error' } });
}

function send(res: Response, answer: HttpAnswer): void {
  if (res.headersSent) return;
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.json(answer.body);
}
