import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { postbackRequestTemplate } from '../lib/postbacks.js';

/**
 * A closed-loop HTTP/1.1 keep-alive load generator for one request shape: `connections`
 * sockets, each sending the next postback as soon as the previous answer is read. Lighter than
 * autocannon with a per-request body (about 15 µs of client CPU per request instead of about
 * 60 µs here), which matters when client and server share two cores.
 */
export interface LeanLoad {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  readonly durationSec: number;
  /** At most this many requests in all. */
  readonly maxRequests: number;
  readonly nextSaleId: () => number;
}

export interface LeanResult {
  readonly sent: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly elapsedSec: number;
  /** Milliseconds per answer, in the order they came. */
  readonly latencies: Float64Array;
}

export async function runLean(load: LeanLoad): Promise<LeanResult> {
  const template = postbackRequestTemplate(`${load.host}:${load.port}`);
  const latencies = new Float64Array(load.maxRequests);
  let answered = 0;
  let sent = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + load.durationSec * 1000;
  let lastAnswer = start;

  const runConnection = (): Promise<void> =>
    new Promise((resolve) => {
      const socket: Socket = connect({ host: load.host, port: load.port, noDelay: true });
      let sentAt = 0;
      const sendNext = () => {
        if (sent >= load.maxRequests || performance.now() >= deadline) {
          socket.end();
          return;
        }
        sent++;
        sentAt = performance.now();
        socket.write(Buffer.from(template.fill(load.nextSaleId())));
      };
      socket.on('connect', sendNext);
      onAnswers(socket, (status) => {
        const now = performance.now();
        latencies[answered++] = now - sentAt;
        lastAnswer = now;
        if (status >= 200 && status < 300) ok++;
        else non2xx++;
        sendNext();
      });
      socket.on('error', () => {
        errors++;
        socket.destroy();
      });
      socket.on('close', () => resolve());
      socket.setTimeout(15_000, () => socket.destroy(new Error('no answer within 15 s')));
    });

  await Promise.all(Array.from({ length: load.connections }, runConnection));
  return {
    sent,
    ok,
    non2xx,
    errors,
    elapsedSec: (lastAnswer - start) / 1000,
    latencies: latencies.subarray(0, answered),
  };
}

/**
 * Calls `answered` with the status of each whole HTTP answer the socket receives, in order. An
 * answer it cannot read destroys the socket with an error naming its first bytes.
 */
export function onAnswers(socket: Socket, answered: (status: number) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      let answer: ReturnType<typeof readAnswer>;
      try {
        answer = readAnswer(pending);
      } catch (error) {
        const head = JSON.stringify(pending.toString('latin1', 0, 80));
        return void socket.destroy(new Error(`${(error as Error).message}: ${head}`));
      }
      if (answer === null) return;
      pending = pending.subarray(answer.length);
      answered(answer.status);
    }
  });
}

/** The status and byte length of the first whole answer in `bytes`, or null if incomplete. */
function readAnswer(bytes: Buffer): { status: number; length: number } | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = bytes.toString('latin1', 0, headEnd).toLowerCase();
  const match = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (!match) throw new Error('answer without content-length (chunked answers are not read)');
  const length = headEnd + 4 + Number(match[1]);
  if (bytes.length < length) return null;
  return { status: Number(head.slice(9, 12)), length };
}
