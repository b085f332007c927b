import autocannon from 'autocannon';
import { percentile, round } from '../lib/stats.js';
import { postbackBody, postbackHeaders } from '../lib/postbacks.js';
import { runLean } from './leanClient.js';

/**
 * The load generator of the throughput scenarios, run in a process of its own: a fixed number
 * of connections for a fixed time (or a fixed number of requests), every request a new signed
 * postback (a new sale id, so none is a duplicate). Prints one JSON line on stdout.
 * `generator` 'lean' is bench/load/leanClient.ts; 'autocannon' is autocannon with a
 * setupRequest per request (it costs the client about four times the CPU: see PERFORMANCE.md).
 */
export interface ThroughputLoad {
  readonly url: string;
  readonly connections: number;
  readonly durationSec: number;
  /** First sale id (nine digits); each request takes the next one. */
  readonly idBase: number;
  /** Stop after this many requests (the duration still bounds the run). */
  readonly amount?: number;
  readonly generator: 'lean' | 'autocannon';
}

export interface ThroughputResult {
  readonly requests: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly durationSec: number;
  readonly rps: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly lastId: number;
  /** CPU seconds of this process during the load, and in all (start-up included). */
  readonly load_cpu_s: number;
  readonly load_process_cpu_s: number;
}

const load = JSON.parse(process.argv[2] ?? '{}') as ThroughputLoad;
let nextId = load.idBase;
const cpuBefore = process.cpuUsage();
const output = load.generator === 'autocannon' ? await withAutocannon() : await withLean();
const cpuDuring = process.cpuUsage(cpuBefore);
const cpuInAll = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({
    ...output,
    load_cpu_s: round((cpuDuring.user + cpuDuring.system) / 1e6, 3),
    load_process_cpu_s: round((cpuInAll.user + cpuInAll.system) / 1e6, 3),
  })}\n`,
);

type Measured = Omit<ThroughputResult, 'load_cpu_s' | 'load_process_cpu_s'>;

async function withLean(): Promise<Measured> {
  const url = new URL(load.url);
  const result = await runLean({
    host: url.hostname,
    port: Number(url.port),
    connections: load.connections,
    durationSec: load.durationSec,
    maxRequests: load.amount ?? 50_000 * load.durationSec,
    nextSaleId: () => nextId++,
  });
  return {
    requests: result.sent,
    ok: result.ok,
    non2xx: result.non2xx,
    errors: result.errors,
    durationSec: round(result.elapsedSec, 2),
    rps: result.elapsedSec > 0 ? Math.round(result.ok / result.elapsedSec) : 0,
    p50_ms: round(percentile(result.latencies, 0.5), 2),
    p99_ms: round(percentile(result.latencies, 0.99), 2),
    lastId: nextId - 1,
  };
}

async function withAutocannon(): Promise<Measured> {
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.durationSec,
    ...(load.amount === undefined ? {} : { amount: load.amount }),
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/postbacks',
        setupRequest: (request) => {
          const body = postbackBody(nextId++);
          return { ...request, body, headers: postbackHeaders(body) };
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    durationSec: result.duration,
    rps: Math.round(result['2xx'] / result.duration),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    lastId: nextId - 1,
  };
}
