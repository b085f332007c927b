import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { postbackBody, postbackHeaders } from '../lib/postbacks.js';

/**
 * The load generator of the e2e scenario: an open loop at a fixed rate, request i sent at
 * start + i / rate whatever the answers (autocannon's rate limit sends each second's quota in
 * a burst). Prints one JSON line: the answers' latencies and, per sale id, when it was due.
 * Latencies count from the scheduled time, so a late send is counted against the server.
 */
export interface PacedLoad {
  readonly url: string;
  readonly rate: number;
  readonly durationSec: number;
  readonly connections: number;
  readonly idBase: number;
}

export interface PacedResult {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  /** What the failed requests got: an HTTP status, or the error that ended them. */
  readonly failures: Record<string, number>;
  /** Requests sent per second, measured from the first to the last send. */
  readonly offeredRps: number;
  readonly durationSec: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** [sale id, epoch ms when it was due], for the accept-to-applied join. */
  readonly due: [number, number][];
}

const load = JSON.parse(process.argv[2] ?? '{}') as PacedLoad;
const target = new URL('/postbacks', load.url);
const agent = new Agent({ keepAlive: true, maxSockets: load.connections });
const total = Math.round(load.rate * load.durationSec);
const intervalMs = 1000 / load.rate;
const epoch = () => performance.timeOrigin + performance.now();

const latencies: number[] = [];
const due: [number, number][] = [];
let ok = 0;
let failed = 0;
const failures: Record<string, number> = {};
const fail = (reason: string) => {
  failed++;
  failures[reason] = (failures[reason] ?? 0) + 1;
};
let sent = 0;
let answered = 0;
let lastSendAt = 0;
const start = epoch() + 20;

const done = new Promise<void>((resolve) => {
  const send = (index: number) => {
    const id = load.idBase + index;
    const dueAt = start + index * intervalMs;
    const body = postbackBody(id);
    due.push([id, dueAt]);
    const req = request(
      target,
      { method: 'POST', agent, headers: postbackHeaders(body) },
      (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(epoch() - dueAt);
          if (res.statusCode === 200) ok++;
          else fail(`HTTP ${res.statusCode}`);
          if (++answered === total) resolve();
        });
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => {
      fail(error.message);
      if (++answered === total) resolve();
    });
    req.end(body);
    lastSendAt = epoch();
  };
  const tick = () => {
    const now = epoch();
    while (sent < total && start + sent * intervalMs <= now) send(sent++);
    if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - epoch()));
  };
  setTimeout(tick, 20);
});
await done;
agent.destroy();

latencies.sort((a, b) => a - b);
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
const sendingSec = (lastSendAt - start) / 1000 + intervalMs / 1000;
const output: PacedResult = {
  sent,
  ok,
  failed,
  failures,
  offeredRps: Math.round(sent / Math.max(sendingSec, 1e-3)),
  durationSec: load.durationSec,
  p50_ms: round(at(0.5)),
  p99_ms: round(at(0.99)),
  due,
};
process.stdout.write(`${JSON.stringify(output)}\n`);

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
