/**
 * The sandbox's Express application: the four public endpoints of docs/gateway.md 4 and the control
 * API under /_sandbox.
 */
import express from 'express';
import type { ErrorRequestHandler, Express } from 'express';
import { sendControlError, sendShapeB } from './apiErrors.js';
import { cashoutRoutes } from './cashoutRoutes.js';
import { controlRecordRoutes } from './controlRecordRoutes.js';
import { controlSettingsRoutes } from './controlSettingsRoutes.js';
import type { HttpDeps } from './deps.js';
import { salesRoutes } from './salesRoutes.js';

const CONTROL_PREFIX = '/_sandbox';

/** GET /_sandbox: what the control API offers (the start banner points here). */
const CONTROL_INDEX = {
  sandbox: 'paymirror sandbox gateway: control API (see src/sandbox/README.md)',
  routes: [
    'GET    /_sandbox/state                    sales, withdrawals, balance, settings',
    'GET    /_sandbox/deliveries               notification delivery attempts',
    'DELETE /_sandbox/deliveries               clear that log',
    'POST   /_sandbox/config                   {"webhookUrl": …}',
    'POST   /_sandbox/faults                   {"duplicate": 0.1, "reorder": 0.1, "drop": 0.1, …}',
    'POST   /_sandbox/restrictions             account restrictions (403 FORBIDDEN)',
    'POST   /_sandbox/sales/:id/status         {"status": "PAGO"} moves a sale and notifies',
    'POST   /_sandbox/withdrawals/:id/status   {"status": "COMPLETED"} moves a withdrawal',
    'POST   /_sandbox/foreign-sales            a sale of another seller',
    'POST   /_sandbox/balance                  {"availableCents": …}',
  ],
};

function isControlPath(originalUrl: string): boolean {
  const path = originalUrl.split('?')[0] ?? '';
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

/** body-parser errors carry an HTTP status and a type such as entity.parse.failed. */
function clientErrorStatus(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

export function createSandboxApp(deps: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');

  app.use(salesRoutes(deps));
  app.use(cashoutRoutes(deps));
  app.use(
    CONTROL_PREFIX,
    express.json({ limit: '64kb' }),
    express.Router().get('/', (_req, res) => void res.json(CONTROL_INDEX)),
    controlRecordRoutes(deps),
    controlSettingsRoutes(deps),
  );

  app.use((req, res) => {
    if (isControlPath(req.originalUrl)) {
      sendControlError(res, 404, `no route for ${req.method} ${req.path}`);
      return;
    }
    // What the gateway's framework (NestJS) answers for a route it does not have: shape B by
    // accident, which is why paymirror checks its base URL before trusting a 404.
    res.status(404).json({
      statusCode: 404,
      message: `Cannot ${req.method} ${req.originalUrl}`,
      error: 'Not Found',
    });
  });

  const handleError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = clientErrorStatus(error);
    const description =
      status === 400
        ? 'request body is not valid JSON'
        : error instanceof Error
          ? error.message
          : 'request error';
    if (status === null) deps.logger.warn({ err: error, path: req.path }, 'sandbox request failed');
    if (isControlPath(req.originalUrl)) return sendControlError(res, status ?? 500, description);
    if (status !== null) return sendShapeB(res, status, 'Invalid data', description);
    sendShapeB(res, 500, 'Internal server error', 'unexpected sandbox failure');
  };
  app.use(handleError);
  return app;
}
