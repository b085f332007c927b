import { Router, type NextFunction, type Request, type Response } from 'express';
import type { AdminGate } from '../ingress/adminGate.js';
import { assetRoutes } from './assets.js';
import { requireSignIn, signInRoutes } from './auth.js';
import { html, type SafeHtml } from './html.js';
import { CONSOLE_PATH, page } from './layout.js';
import type { ConsoleSources, PageContext, PageHandler, PageResult } from './pageContext.js';
import { booksChartData, booksPage } from './pages/books.js';
import { cashoutsPage } from './pages/cashouts.js';
import { deliveriesPage } from './pages/deliveries.js';
import { deliveryPage } from './pages/delivery.js';
import { healthPage } from './pages/health.js';
import { lookupPage } from './pages/lookup.js';
import { reconciliationPage, runPage } from './pages/reconciliation.js';
import { salePage } from './pages/sale.js';
import { totalsChartData, totalsPage } from './pages/totals.js';
import { withdrawalPage } from './pages/withdrawal.js';
import { securityHeaders, sendCsv, sendPage } from './respond.js';
import { tableCsv, tableHtml, type ConsoleTable } from './table.js';

export interface ConsoleOptions {
  readonly token: string;
  readonly gate: AdminGate;
  readonly trustedProxies: number;
  readonly sources: ConsoleSources;
}

const PAGES: readonly (readonly [string, PageHandler])[] = [
  ['/', async () => ({ kind: 'redirect', to: `${CONSOLE_PATH}/deliveries` })],
  ['/lookup', lookupPage],
  ['/deliveries', deliveriesPage],
  ['/deliveries/:id', deliveryPage],
  ['/sales/:id', salePage],
  ['/withdrawals/:id', withdrawalPage],
  ['/totals', totalsPage],
  ['/totals/chart.json', totalsChartData],
  ['/books', booksPage],
  ['/books/chart.json', booksChartData],
  ['/reconciliation', reconciliationPage],
  ['/reconciliation/runs/:id', runPage],
  ['/cashouts', cashoutsPage],
  ['/health', healthPage],
];

/**
 * The console's routes (mounted at /console on the admin listener by mount.ts): read-only pages
 * about the mirror, for people. Its files and the sign-in form are open; every page needs the
 * admin token (a header, or the cookie the form sets). GET only, besides signing in and out.
 */
export function consoleRouter(options: ConsoleOptions): Router {
  const router = Router({ strict: false, caseSensitive: true });
  router.use(securityHeaders);
  assetRoutes(router);
  const auth = {
    token: options.token,
    gate: options.gate,
    trustedProxies: options.trustedProxies,
    nowSeconds: () => Math.floor(options.sources.now().getTime() / 1000),
  };
  signInRoutes(router, auth);
  router.use(requireSignIn(auth));
  for (const [path, handler] of PAGES) {
    router.get(path, (req, res, next) => {
      serve(handler, options.sources, req, res).catch(next);
    });
  }
  router.all('/{*rest}', (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      next();
      return;
    }
    res.setHeader('allow', 'GET, HEAD');
    sendPage(res, 405, message('Read-only', html`<p>The console changes nothing.</p>`));
  });
  router.use((_req: Request, res: Response) => {
    sendPage(res, 404, message('Not found', html`<p>No such page in the console.</p>`));
  });
  return router;
}

async function serve(
  handler: PageHandler,
  sources: ConsoleSources,
  req: Request,
  res: Response,
): Promise<void> {
  const url = new URL(req.originalUrl, 'http://console.invalid');
  const tables = new Map<string, ConsoleTable>();
  const context: PageContext = {
    sources,
    url,
    params: Object.fromEntries(
      Object.entries(req.params).map(([key, value]) => [key, String(value)]),
    ),
    table(table) {
      tables.set(table.name, table);
      return tableHtml(table, withQuery(url, { csv: table.name }));
    },
    withQuery: (changes) => withQuery(url, { ...changes, csv: null }),
  };
  const result = await handler(context);
  const csv = url.searchParams.get('csv');
  if (csv !== null && result.kind === 'page') {
    const table = tables.get(csv);
    if (table) sendCsv(res, table.name, tableCsv(table));
    else sendPage(res, 404, message('Not found', html`<p>This page has no such table.</p>`));
    return;
  }
  answer(res, result);
}

function answer(res: Response, result: PageResult): void {
  switch (result.kind) {
    case 'page':
      sendPage(res, 200, page(result));
      return;
    case 'redirect':
      res.redirect(303, result.to);
      return;
    case 'json':
      res.setHeader('cache-control', 'no-store');
      res.status(200).json(result.body);
      return;
    case 'not_found':
      sendPage(res, 404, message('Not found', html`<p>Not found: ${result.what}.</p>`));
      return;
    case 'bad_request':
      sendPage(
        res,
        400,
        message(
          'Cannot read this request',
          html`<p class="problem" role="alert">${result.problem}</p>
            <p><a href="${result.back}">Start again</a></p>`,
        ),
      );
      return;
  }
}

function message(title: string, body: SafeHtml): SafeHtml {
  return page({
    title,
    section: null,
    body: html`<h1>${title}</h1>
      ${body}`,
  });
}

/** The console-relative URL with query parameters changed (null: removed). */
function withQuery(url: URL, changes: Readonly<Record<string, string | null>>): string {
  const next = new URL(url);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.searchParams.delete(key);
    else next.searchParams.set(key, value);
  }
  return `${next.pathname}${next.search}`;
}
