import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP forwarder for fleet tests: a load balancer in front of several ingress
 * processes (round robin, skipping a target that refuses the connection), or a recorder in
 * front of the sandbox gateway (every request's time and path, to check the GET budget).
 */
export interface Forwarder {
  readonly url: string;
  close(): Promise<void>;
}

export interface ForwarderOptions {
  /** Base URLs to forward to, asked on every request (targets come and go). */
  readonly targets: () => readonly string[];
  readonly onRequest?: (request: { method: string; path: string; at: number }) => void;
}

export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      options.onRequest?.({ method, path, at: Date.now() });
      const targets = options.targets();
      const attempt = (tries: number): void => {
        if (tries >= targets.length) {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end('{"error":"no target answered"}');
          return;
        }
        const target = targets[next++ % targets.length] as string;
        forward(target, method, path, req.headers, body).then(
          (answer) => {
            res.writeHead(answer.status, answer.headers);
            res.end(answer.body);
          },
          // Only a target that never took the request is skipped: one that died mid-answer
          // leaves the sender without a 200, and the sender retries, as with a real balancer.
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'ECONNREFUSED') attempt(tries + 1);
            else res.destroy();
          },
        );
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forward(
  target: string,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, target);
    const outgoing = request(
      url,
      { method, headers: { ...headers, host: url.host, 'content-length': String(body.length) } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 502,
            headers: withoutHopHeaders(answer.headers),
            body: Buffer.concat(chunks),
          }),
        );
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function withoutHopHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { connection: _c, 'transfer-encoding': _t, 'keep-alive': _k, ...rest } = headers;
  return rest;
}
