import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient } from '../../src/gateway/index.js';
import type { GatewayClient, GatewayClientOptions } from '../../src/gateway/index.js';

/**
 * A small stand-in for the gateway on 127.0.0.1:0 that answers the gateway's wire formats exactly
 * (docs/gateway.md 2) and records what it received, raw bodies included.
 */

export const PUBLIC_KEY = 'gwk_pub_4f1c2d3e5a6b7c8d9e0f';
export const PRIVATE_KEY = 'gwk_priv_S3cr3t9a8b7c6d5e4f3a2b1c';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  readonly body: string;
  /** The test's clock when the request arrived (see startFakeGateway's `now`). */
  readonly at: number;
}

export type Reply =
  | {
      readonly status: number;
      /** An object is sent as JSON; a string as is. */
      readonly body?: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Close the connection without answering (a reset). */
  | 'destroy'
  /** Never answer. */
  | 'hang'
  /** Send the headers and half a body, then never finish. */
  | 'stall';

export type Handler = (request: ReceivedRequest, index: number) => Reply;

export interface FakeGateway {
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A client of `gateway` that never waits: no rate limit and no real sleeping between retries. */
export function clientFor(
  gateway: FakeGateway,
  options: Partial<GatewayClientOptions> = {},
): GatewayClient {
  return createGatewayClient({
    baseUrl: gateway.baseUrl,
    publicKey: PUBLIC_KEY,
    privateKey: PRIVATE_KEY,
    rateLimiter: { acquire: () => Promise.resolve() },
    sleep: () => Promise.resolve(),
    ...options,
  });
}

/** A sleep that records what it was asked to wait, and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

/** Answers in order; the last reply repeats. */
export function inSequence(...replies: Reply[]): Handler {
  return (_request, index) => {
    const reply = replies[Math.min(index, replies.length - 1)];
    if (reply === undefined) throw new Error('inSequence needs at least one reply');
    return reply;
  };
}

/** The path paymirror's base URL check reads (see GatewayClient.checkBaseUrl). */
export const BASE_URL_CHECK_PATH = '/api/transactions/paymirror-base-url-check';

/**
 * With `baseUrlCheck` (the default), the base URL check is answered as the gateway answers it
 * (400 shape B) before the handler, and not recorded: the handler sees the reads a test makes.
 */
export async function startFakeGateway(
  handler: Handler,
  now: () => number = () => 0,
  options: { readonly baseUrlCheck?: boolean } = {},
): Promise<FakeGateway> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    if ((options.baseUrlCheck ?? true) && req.url === BASE_URL_CHECK_PATH) {
      req.resume();
      answer(res, { status: 400, body: { message: 'Invalid id', error: 'Bad Request' } });
      return;
    }
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at,
      };
      requests.push(request);
      answer(res, handler(request, requests.length - 1));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: Reply): void {
  if (reply === 'hang') return;
  if (reply === 'destroy') {
    res.socket?.destroy();
    return;
  }
  if (reply === 'stall') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"id":');
    return;
  }
  const body =
    reply.body === undefined
      ? ''
      : typeof reply.body === 'string'
        ? reply.body
        : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
  res.end(body);
}

/** docs/gateway.md 2.1, as GET /api/public/cashout/{id} answers it (with updatedAt). */
export function withdrawalWire(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 7,
    amount: '150.5',
    netAmount: '147.51',
    pixKey: 'maria@example.com',
    pixKeyType: 'EMAIL',
    status: 'COMPLETED',
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:05:00.000Z',
    fees: { fixed: '2.00', variable: '0.99', total: '2.99' },
    ...overrides,
  };
}

/** docs/gateway.md 2.2, the read form: numbers of centavos. */
export function transactionWire(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 1234,
    status: 'PAGO',
    amount: 15000,
    netAmount: 14251,
    systemFee: 749,
    reserveAmount: 0,
    paymentMethod: 'PIX',
    date: '2026-11-20T10:00:00.000Z',
    completedAt: '2026-11-20T10:02:30.000Z',
    customer: {
      name: 'Maria da Silva',
      email: 'maria@example.com',
      document: '12345678909',
      phone: '11999998888',
    },
    items: [
      { id: 1, title: 'Camiseta', unitPrice: 5000, quantity: 2, tangible: true },
      { id: 2, title: 'E-book', unitPrice: 5000, quantity: 1, tangible: false },
    ],
    pixKey: '00020126580014br.gov.bcb.pix0136chave',
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: 'ext-1234',
    ...overrides,
  };
}

/** docs/gateway.md 2.3: sale.amount a string of centavos, shipping JSON in a string. */
export function createdSaleWire(
  saleOverrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    message: 'Venda criada com sucesso',
    sale: {
      id: 5678,
      amount: '15000',
      status: 'PENDENTE',
      paymentMethod: 'PIX',
      customer: {
        name: 'Maria da Silva',
        email: 'maria@example.com',
        document: '12345678909',
        phone: '11999998888',
      },
      payment: {
        method: 'PIX',
        installments: null,
        pix: {
          key: '00020126580014br.gov.bcb.pix0136chave5204000053039865406150.00',
          qrCodeBase64: 'data:image/png;base64,iVBORw0KGgo=',
          expiresAt: '2026-11-21T10:00:00.000Z',
        },
      },
      shipping: '{"street":"Rua A","number":"10","zipCode":"01001000"}',
      createdAt: '2026-11-20T10:00:00.000Z',
      ...saleOverrides,
    },
  };
}
