import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Channel } from '../notifications/notification.js';
import { ingestPostback, ingestWebhook, type IngestDeps } from './ingest.js';
import { answerFor, type HttpAnswer, type IngestOutcome } from './outcome.js';
import { createRejectionLog } from './rejectionLog.js';

export interface NotificationRoutes {
  /** POST /postbacks: ingests and answers (never throws). */
  postback(req: IncomingMessage, res: ServerResponse): void;
  /** POST /webhooks/:token, the token already percent-decoded. */
  webhook(req: IncomingMessage, res: ServerResponse, token: string): void;
}

/**
 * The two notification routes on plain node:http: they read their own raw body (the signature
 * covers the exact bytes) and answer JSON with the headers Express's res.json wrote
 * (Content-Type `application/json; charset=utf-8`, Content-Length), so that the same answer
 * comes back whether the request reached them directly or through the Express app.
 */
export function createNotificationRoutes(
  ingest: IngestDeps,
  metrics: Metrics,
  logger: Logger,
): NotificationRoutes {
  // One counter child per label set, looked up by a string key instead of prom-client's
  // per-call label hashing.
  const counters = new Map<string, { inc(): void }>();
  const rejections = createRejectionLog(logger);
  const count = (channel: Channel, outcome: IngestOutcome) => {
    const reason = outcome.kind === 'rejected' ? outcome.reason : '';
    const key = `${channel}|${outcome.kind}|${reason}`;
    let counter = counters.get(key);
    if (!counter) {
      counter = metrics.deliveries.labels({ channel, outcome: outcome.kind, reason });
      counters.set(key, counter);
    }
    counter.inc();
  };

  const respond = (
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    channel: Channel,
    outcome: IngestOutcome,
  ) => {
    if (outcome.kind === 'rejected') {
      // The route, never the URL: a webhook URL carries the token.
      rejections.record(req.socket.remoteAddress ?? null, {
        route,
        channel,
        reason: outcome.reason,
      });
    }
    if (outcome.kind === 'accepted') metrics.markAccepted();
    count(channel, outcome);
    if (outcome.kind === 'rejected' && outcome.reason === 'body_too_large') {
      // The rest of the body was not read: do not keep the connection for another request.
      res.setHeader('connection', 'close');
    }
    sendJson(res, answerFor(outcome));
  };
  const failed = (res: ServerResponse, error: unknown) => {
    logger.error({ err: error }, 'unexpected ingress failure');
    sendJson(res, { status: 500, body: { error: 'internal error' } });
  };

  return {
    postback(req, res) {
      ingestPostback(req, ingest).then(
        (outcome) => respond(req, res, '/postbacks', 'postback', outcome),
        (error: unknown) => failed(res, error),
      );
    },
    webhook(req, res, token) {
      ingestWebhook(req, token, ingest).then(
        (outcome) => respond(req, res, '/webhooks/:token', 'webhook', outcome),
        (error: unknown) => failed(res, error),
      );
    },
  };
}

/** An answer as Express's res.json wrote it for a POST (no ETag: the app disables them). */
function sendJson(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent) return;
  const body = JSON.stringify(answer.body);
  res.statusCode = answer.status;
  const headers = answer.headers;
  if (headers) for (const name of Object.keys(headers)) res.setHeader(name, headers[name] ?? '');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

const PLAIN_SEGMENT = /^[\w.~%!$&'()*+,;=:@-]+$/;

/**
 * The route a request line names when it is one of the two in their plain form: `POST
 * /postbacks`, or `POST /webhooks/<token>` with one non-empty, decodable path segment and no
 * query string. Anything else (another method, a query string, a trailing slash, other letter
 * case, a malformed percent-escape) is left to the Express app, which answers it as always.
 */
export function plainNotificationRoute(
  method: string | undefined,
  url: string | undefined,
):
  | { readonly channel: 'postback' }
  | { readonly channel: 'webhook'; readonly token: string }
  | null {
  if (method !== 'POST' || url === undefined) return null;
  if (url === '/postbacks') return { channel: 'postback' };
  if (!url.startsWith('/webhooks/')) return null;
  const raw = url.slice('/webhooks/'.length);
  // Only the characters a path segment holds as they are: the Express app's URL parser would
  // read anything else (a '#', a space, a '?') its own way.
  if (!PLAIN_SEGMENT.test(raw)) return null;
  if (!raw.includes('%')) return { channel: 'webhook', token: raw };
  try {
    return { channel: 'webhook', token: decodeURIComponent(raw) };
  } catch {
    return null;
  }
}
