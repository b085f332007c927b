/**
 * A tiny HTTP server standing in for paymirror's ingress (or, in
 * test/support/transitionReceiver.ts, a consumer of its transition feed): it records every
 * request with its raw bytes and answers what the test tells it to.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly receivedAt: number;
}

/** A status code to answer, or 'hang' to never answer. */
export type ReceiverAnswer = number | 'hang';
export type Responder = (request: ReceivedRequest) => ReceiverAnswer;

export interface Receiver {
  readonly url: string;
  readonly webhookUrl: string;
  readonly postbackUrl: string;
  readonly requests: ReceivedRequest[];
  webhooks(): ReceivedRequest[];
  postbacks(): ReceivedRequest[];
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

export function bodyJson(request: ReceivedRequest): Record<string, unknown> {
  return JSON.parse(request.rawBody.toString('utf8')) as Record<string, unknown>;
}

export async function startReceiver(initial: Responder = () => 200): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  let responder = initial;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        index: requests.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      requests.push(request);
      const answer = responder(request);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'application/json' }).end('{"status":"accepted"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    webhookUrl: `${url}/webhooks/token`,
    postbackUrl: `${url}/postbacks`,
    requests,
    webhooks: () => requests.filter((request) => request.path.startsWith('/webhooks/')),
    postbacks: () => requests.filter((request) => request.path === '/postbacks'),
    respondWith(next) {
      responder = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
