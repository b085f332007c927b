import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { postbackRequestTemplate } from '../lib/postbacks.js';
import { onAnswers } from './leanClient.js';

/**
 * The load generator of the e2e scenario: an open loop at a fixed rate, request i due at
 * start + i / rate whatever the answers (autocannon's rate limit sends each second's quota in
 * a burst), on up to `connections` keep-alive sockets; a request due while every socket waits
 * for an answer is sent on the first one free. Prints one JSON line: the answers' latencies
 * and, per sale id, when it was due. Latencies count from the due time, so a late send is
 * counted against the server. Requests are written from one template, as the lean client's
 * (leanClient.ts): node:http cost the generator about 150 µs a request, on the two cores the
 * server under test has.
 */
export interface PacedLoad {
  readonly url: string;
  readonly rate: number;
  readonly durationSec: number;
  readonly connections: number;
  /** First sale id (nine digits); each request takes the next one. */
  readonly idBase: number;
  /**
   * Requests sent at the same rate just before the measured ones, on their own sale ids, and
   * not measured: the measured requests then meet open sockets and a steady stream, not a
   * start from idle.
   */
  readonly leadIn?: { readonly durationSec: number; readonly idBase: number };
}

export interface PacedResult {
  /** Measured requests sent (the lead-in's not counted). */
  readonly sent: number;
  /** Lead-in requests sent before them. */
  readonly leadInSent: number;
  /** Requests answered 200, the lead-in's included. */
  readonly ok: number;
  /** Failed requests, the lead-in's included. */
  readonly failed: number;
  /** What the failed requests got: an HTTP status, or the error that ended them. */
  readonly failures: Record<string, number>;
  /** Measured requests sent per second, from the first one's due time to the last send. */
  readonly offeredRps: number;
  readonly durationSec: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** [sale id, epoch ms when it was due], for the accept-to-applied join. */
  readonly due: [number, number][];
}

const load = JSON.parse(process.argv[2] ?? '{}') as PacedLoad;
const target = new URL(load.url);
const template = postbackRequestTemplate(target.host);
const leadInTotal = Math.round(load.rate * (load.leadIn?.durationSec ?? 0));
const total = leadInTotal + Math.round(load.rate * load.durationSec);
const intervalMs = 1000 / load.rate;
const epoch = () => performance.timeOrigin + performance.now();

const latencies: number[] = [];
const due: [number, number][] = [];
let ok = 0;
let failed = 0;
const failures: Record<string, number> = {};
let sent = 0;
let answered = 0;
let lastSendAt = 0;
/** Due requests no socket was free for, oldest first: [sale id, due at]. */
const backlog: [number, number][] = [];
/** Sockets waiting for a request, the last used on top (node:http's agent's order). */
const idle: Connection[] = [];
let open = 0;
let finish: () => void = () => {};
const done = new Promise<void>((resolve) => (finish = resolve));

/**
 * Sockets idle this long are closed, not reused: node's HTTP server closes a keep-alive socket
 * idle 5 s, and a request written as it does so fails (ECONNRESET). Idle sockets are reused
 * last-used first, so at 500/s the ones at the bottom of the stack do sit idle that long.
 */
const IDLE_CLOSE_MS = 4000;

/** One keep-alive socket: one request at a time (no pipelining), as an HTTP/1.1 agent's. */
interface Connection {
  /** When it last became idle (epoch ms). */
  idleSince: number;
  send(id: number, dueAt: number): void;
  close(): void;
}

function settle(dueAt: number, failure: string | null): void {
  if (dueAt >= measuredStart) latencies.push(epoch() - dueAt);
  if (failure === null) ok++;
  else {
    failed++;
    failures[failure] = (failures[failure] ?? 0) + 1;
  }
  if (++answered === total) finish();
}

/** Sends on an idle socket, or opens one (up to `connections`) and sends when it connects. */
function dispatch(id: number, dueAt: number): void {
  for (let connection = idle.pop(); connection; connection = idle.pop()) {
    if (epoch() - connection.idleSince < IDLE_CLOSE_MS) return connection.send(id, dueAt);
    connection.close();
  }
  backlog.push([id, dueAt]);
  if (open < load.connections) openConnection();
}

function openConnection(): void {
  open++;
  const socket: Socket = connect({ host: target.hostname, port: Number(target.port) });
  socket.setNoDelay(true);
  let inFlight: number | null = null;
  let connected = false;
  const connection: Connection = {
    idleSince: 0,
    send(id, dueAt) {
      inFlight = dueAt;
      socket.write(Buffer.from(template.fill(id)));
      lastSendAt = epoch();
    },
    close: () => socket.destroy(),
  };
  const next = () => {
    const waiting = backlog.shift();
    if (waiting) return connection.send(...waiting);
    connection.idleSince = epoch();
    idle.push(connection);
  };
  socket.once('connect', () => {
    connected = true;
    next();
  });
  onAnswers(socket, (status) => {
    // An answer on an idle socket (the server timing it out): the socket leaves the pool.
    if (inFlight === null) return void socket.destroy();
    const dueAt = inFlight;
    inFlight = null;
    settle(dueAt, status === 200 ? null : `HTTP ${status}`);
    next();
  });
  socket.setTimeout(10_000, () => {
    if (inFlight !== null) socket.destroy(new Error('timeout'));
  });
  socket.on('error', (error) => {
    // A socket that never connected fails the request it was opened for: with the server
    // gone, every waiting request then fails in turn instead of waiting for good.
    const failing = inFlight ?? (connected ? undefined : backlog.shift()?.[1]);
    if (failing !== undefined) settle(failing, error.message);
    inFlight = null;
  });
  // The server closes a socket idle past its keep-alive timeout: it leaves the pool.
  socket.on('close', () => {
    open--;
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
    if (backlog.length > 0 && open < load.connections) openConnection();
  });
}

const start = epoch() + 20;
/** When the first measured request is due: the lead-in's are due before. */
const measuredStart = start + leadInTotal * intervalMs;
const tick = () => {
  const now = epoch();
  while (sent < total && start + sent * intervalMs <= now) {
    const dueAt = start + sent * intervalMs;
    const measured = sent >= leadInTotal;
    const id = measured ? load.idBase + (sent - leadInTotal) : (load.leadIn?.idBase ?? 0) + sent;
    if (measured) due.push([id, dueAt]);
    sent++;
    dispatch(id, dueAt);
  }
  if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - epoch()));
};
setTimeout(tick, 20);
await done;

latencies.sort((a, b) => a - b);
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
const sendingSec = (lastSendAt - measuredStart) / 1000 + intervalMs / 1000;
const output: PacedResult = {
  sent: sent - leadInTotal,
  leadInSent: leadInTotal,
  ok,
  failed,
  failures,
  offeredRps: Math.round((sent - leadInTotal) / Math.max(sendingSec, 1e-3)),
  durationSec: load.durationSec,
  p50_ms: round(at(0.5)),
  p99_ms: round(at(0.99)),
  due,
};
// The keep-alive sockets would hold the process open; exit once the line is written.
process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(0));

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
