import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { transitionJobSchema, type TransitionJob } from '../../src/queue/catalog.js';

export interface ReceivedTransition {
  readonly transition: TransitionJob;
  readonly headers: IncomingHttpHeaders;
  /** The status it was answered with; null for a POST held unanswered. */
  readonly answered: number | null;
}

export interface TransitionReceiver {
  /** Where to POST transitions (TRANSITIONS_WEBHOOK_URL). */
  readonly url: string;
  /** Every POST, in arrival order, answered or not with a 2xx. */
  readonly received: ReceivedTransition[];
  close(): Promise<void>;
}

/**
 * A consumer of the transition feed's POSTs: records each and answers with `status(it)`, or
 * holds it unanswered until closed when that is null.
 */
export async function startTransitionReceiver(
  status: (transition: TransitionJob) => number | null,
): Promise<TransitionReceiver> {
  const received: ReceivedTransition[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const transition = transitionJobSchema.parse(JSON.parse(body));
      const answered = status(transition);
      received.push({ transition, headers: req.headers, answered });
      if (answered !== null) res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/transitions`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
