import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_WEBHOOK_TOKEN, postbackBody } from './postbacks.js';
import { withSql } from './services.js';

/** The gateway budget the confirmation lane drains the unconfirmed webhooks at. */
export const FLOOD_GATEWAY_MAX_RPS = 5;

export interface NotFoundGateway {
  readonly url: string;
  /** What paymirror needs to confirm webhooks against it, at FLOOD_GATEWAY_MAX_RPS. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A leaked webhook URL's flood: webhooks for ids the gateway does not know. Each one
 * waits for a GET, which this gateway answers as it does for an id it does not know (404,
 * shape B), at most FLOOD_GATEWAY_MAX_RPS a second. The sales below
 * UNCONFIRMED_WEBHOOK_FIRST_ID (the measured postbacks' and genuine webhooks') are real: paid,
 * as bench/lib/postbacks.ts describes them.
 */
export async function startNotFoundGateway(): Promise<NotFoundGateway> {
  const server: HttpServer = createServer((request, response) => {
    // An id that is not a number answers 400, as the gateway does: paymirror's base URL check.
    if (/^\/api\/transactions\/[^/]*\D[^/]*$/.test(request.url ?? '')) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: 'Invalid id', error: 'Bad Request' }));
      return;
    }
    const id = Number(/^\/api\/transactions\/(\d+)$/.exec(request.url ?? '')?.[1] ?? 0);
    if (id > 0 && id < UNCONFIRMED_WEBHOOK_FIRST_ID) {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(paidSaleRead(id)));
      return;
    }
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: 'Transaction not found', error: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      GATEWAY_BASE_URL: url,
      GATEWAY_PUBLIC_KEY: 'bench-public-key',
      GATEWAY_PRIVATE_KEY: 'bench-private-key-0123456789',
      GATEWAY_MAX_RPS: String(FLOOD_GATEWAY_MAX_RPS),
      RECONCILE_INTERVAL_SECONDS: '3600',
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** GET /api/transactions/{id} of a bench sale, paid: the read form (sums in centavos). */
function paidSaleRead(id: number): Record<string, unknown> {
  const sale = JSON.parse(postbackBody(id)) as {
    amount: string;
    date: string;
    customerName: string;
    customerEmail: string;
    saleItems: {
      id: number;
      title: string;
      unitPrice: string;
      quantity: number;
      tangible: boolean;
    }[];
  };
  const amount = Number(sale.amount);
  const fee = Math.round(amount * 0.0299) + 100;
  return {
    id,
    status: 'PAGO',
    amount,
    netAmount: amount - fee,
    systemFee: fee,
    reserveAmount: 0,
    paymentMethod: 'PIX',
    date: sale.date,
    completedAt: sale.date,
    customer: { name: sale.customerName, email: sale.customerEmail },
    items: sale.saleItems.map((item) => ({ ...item, unitPrice: Number(item.unitPrice) })),
    pixKey: null,
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: null,
  };
}

/** The unconfirmed webhooks' sale ids start here, above every measured postback's. */
export const UNCONFIRMED_WEBHOOK_FIRST_ID = 800_000_000;

/** Sends `count` unconfirmed webhooks (ids from UNCONFIRMED_WEBHOOK_FIRST_ID), 100 at a time. */
export async function sendUnconfirmedWebhooks(url: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - first) }, (_, i) =>
        sendWebhook(url, UNCONFIRMED_WEBHOOK_FIRST_ID + first + i),
      ),
    );
  }
}

async function sendWebhook(url: string, id: number): Promise<void> {
  await sendSaleWebhook(url, id);
}

/** The webhook of a paid bench sale; the inbox id of its row. */
export async function sendSaleWebhook(url: string, id: number): Promise<number> {
  const body = JSON.parse(postbackBody(id)) as Record<string, unknown>;
  delete body.externalTransactionId;
  const answer = await fetch(`${url}/webhooks/${BENCH_WEBHOOK_TOKEN}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, fee: 150, transactionId: id, type: 'TRANSACTION' }),
  });
  if (answer.status !== 200) throw new Error(`webhook ${id} answered ${answer.status}`);
  return ((await answer.json()) as { id: number }).id;
}

/** Webhooks still waiting in the confirmation lane. */
export function pendingWebhooks(databaseUrl: string): Promise<number> {
  return withSql(databaseUrl, async (sql) => {
    const [row] = await sql<{ n: string }[]>`
      select count(*) as n from inbox_events where channel = 'webhook' and state = 'pending'`;
    return Number(row?.n ?? 0);
  });
}
