import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of a gateway (the sandbox) that counts the GETs of each path and can hold
 * the answers to some paths until told to let them go: what a test needs to see how many reads
 * paymirror sends, and to keep one in flight.
 */
export interface CountingProxy {
  readonly url: string;
  /** GETs received for this path so far (held ones included). */
  gets(path: string): number;
  /** POSTs received for this path so far (held ones included). */
  posts(path: string): number;
  /** GETs received for paths matching this pattern. */
  getsMatching(pattern: RegExp): number;
  /** Answers to this path wait until released. */
  hold(path: string): void;
  /** Lets the held answers to this path go, and stops holding it. */
  release(path: string): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const counts = new Map<string, number>();
  const postCounts = new Map<string, number>();
  const held = new Map<string, (() => void)[]>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET') counts.set(path, (counts.get(path) ?? 0) + 1);
    if (req.method === 'POST') postCounts.set(path, (postCounts.get(path) ?? 0) + 1);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const forward = () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && name !== 'host' && name !== 'connection') {
            headers[name] = value;
          }
        }
        fetch(`${target}${path}`, {
          method: req.method ?? 'GET',
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        }).then(
          async (answer) => {
            const body = Buffer.from(await answer.arrayBuffer());
            res.writeHead(answer.status, {
              'content-type': answer.headers.get('content-type') ?? 'application/json',
            });
            res.end(body);
          },
          () => res.destroy(),
        );
      };
      const waiting = held.get(path);
      if (waiting) waiting.push(forward);
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = (path: string) => {
    const waiting = held.get(path) ?? [];
    held.delete(path);
    for (const forward of waiting) forward();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    gets: (path) => counts.get(path) ?? 0,
    posts: (path) => postCounts.get(path) ?? 0,
    getsMatching: (pattern) =>
      [...counts].reduce((sum, [path, count]) => sum + (pattern.test(path) ? count : 0), 0),
    hold(path) {
      if (!held.has(path)) held.set(path, []);
    },
    release,
    async close() {
      for (const path of [...held.keys()]) release(path);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
