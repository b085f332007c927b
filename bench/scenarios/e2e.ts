import type { PacedLoad, PacedResult } from '../load/paced.js';
import type { Plan } from '../lib/plan.js';
import { peakRssMb, runToEnd, stopChild } from '../lib/processes.js';
import { spawnBenchScript, startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, withSql, type ScenarioServices } from '../lib/services.js';
import { FIRST_SALE_ID } from '../lib/postbacks.js';
import { percentile, round } from '../lib/stats.js';
import { e2eCpu, markCpu, type E2eCpu } from '../lib/e2eCpu.js';
import {
  pendingWebhooks,
  sendUnconfirmedWebhooks,
  UNCONFIRMED_WEBHOOK_FIRST_ID,
  startNotFoundGateway,
} from '../lib/unconfirmedWebhooks.js';
import { waitUntilApplied } from './applied.js';

/** Sale ids of the warm-up and of the measured run's lead-in: not measured. */
const WARM_UP_SALE_ID = 900_000_000;
const LEAD_IN_SALE_ID = 910_000_000;
/** The width of the windows p99_ms_by_window is taken over. */
export const P99_WINDOW_SEC = 2;

export interface E2eSummary {
  readonly offered_rps: number;
  readonly duration_s: number;
  readonly layout: string;
  /** Due time of the request (load generator) → inbox_events.processed_at. */
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
  /** p99 of each P99_WINDOW_SEC of the run, by due time: a run's tail, or one moment's. */
  readonly p99_ms_by_window: number[];
  /** inbox_events.received_at → processed_at, both Postgres now() (transaction starts). */
  readonly received_to_processed_p50_ms: number;
  readonly received_to_processed_p99_ms: number;
  /** The HTTP answers at that rate, from the load generator. */
  readonly http_p50_ms: number;
  readonly http_p99_ms: number;
  readonly sent: number;
  readonly applied: number;
  readonly failed_requests: number;
  /** What the failed requests got (an HTTP status, or the error that ended them). */
  readonly failures: Record<string, number>;
  readonly rss_mb: Record<string, number | null>;
  /** CPU µs a request during the measured run, by process (e2eCpu). */
  readonly cpu: E2eCpu;
  /** With a flood: unconfirmed webhooks queued before the load, and still waiting after it. */
  readonly webhooks_queued: number;
  readonly webhooks_still_pending: number | null;
}

export interface E2eOptions {
  /**
   * Unconfirmed webhooks (the lanes issue's leaked-URL flood) sent before the load: they wait
   * in the confirmation lane, for a gateway that answers 404 at 5 GETs a second, the whole run.
   */
  readonly floodWebhooks: number;
}

/**
 * Accept-to-applied latency of signed postbacks at a fixed offered rate: paymirror as
 * `--role all` (layout 'all') or an ingress and a worker process ('split'). After the load,
 * waits until every postback is applied, then joins each sale id's due time with its inbox
 * row's processed_at.
 */
export async function measureE2e(
  plan: Plan,
  layout: 'all' | 'split',
  options: E2eOptions = { floodWebhooks: 0 },
): Promise<E2eSummary> {
  const flooded = options.floodWebhooks > 0;
  const name = `e2e_${layout}${flooded ? '_flood' : ''}`;
  const gateway = flooded ? await startNotFoundGateway() : null;
  const env = gateway?.env ?? {};
  const services = await createScenarioServices(name, { migrate: true });
  const servers: Server[] = [];
  try {
    if (layout === 'all') {
      servers.push(await startPaymirrorProcess('e2e-all', 'all', services, env));
    } else {
      servers.push(await startPaymirrorProcess('e2e-ingress', 'ingress', services, env));
      servers.push(await startPaymirrorProcess('e2e-worker', 'worker,scheduler', services, env));
    }
    const url = servers[0]?.url ?? '';
    if (flooded) await sendUnconfirmedWebhooks(url, options.floodWebhooks);
    const load = { url, rate: plan.e2eRate, connections: plan.connections };
    // Warm-up at the same rate, on other sale ids, applied before the measured run starts.
    await runPaced({ ...load, durationSec: plan.e2eWarmupSec, idBase: WARM_UP_SALE_ID });
    await waitUntilApplied(services.databaseUrl, 60_000, 'postback');
    // Statistics as autovacuum takes them within a minute of a deployment's first rows. Without
    // them the run measures a new database's first seconds: plans made on empty tables, cached
    // by the prepared statements, scan whole tables as they grow (the inbox update took 4.4 ms
    // a batch instead of 0.6 ms). Not done before the warm-up: on empty tables, ANALYZE
    // records them as empty, which is worse (PERFORMANCE.md, "The lookup").
    await withSql(services.databaseUrl, (sql) => sql`analyze`);
    const before = await markCpu(servers);
    // The measured requests follow a lead-in at the same rate from the same load generator: a
    // stream already running, not one starting from idle with a generator still starting.
    const result = await runPaced({
      ...load,
      durationSec: plan.e2eSec,
      idBase: FIRST_SALE_ID,
      leadIn: { durationSec: plan.e2eLeadInSec, idBase: LEAD_IN_SALE_ID },
    });
    const after = await markCpu(servers);
    await waitUntilApplied(services.databaseUrl, 120_000, 'postback');
    const rss: Record<string, number | null> = {};
    for (const server of servers) rss[server.child.name] = await peakRssMb(server.child.pid);
    return {
      ...(await latencies(services, result)),
      layout,
      rss_mb: rss,
      cpu: await e2eCpu(
        servers,
        services.databaseUrl,
        before,
        after,
        result.sent + result.leadInSent,
      ),
      webhooks_queued: options.floodWebhooks,
      webhooks_still_pending: flooded ? await pendingWebhooks(services.databaseUrl) : null,
    };
  } finally {
    for (const server of servers) await stopChild(server.child);
    await services.drop();
    await gateway?.close();
  }
}

async function latencies(services: ScenarioServices, result: PacedResult) {
  const rows = await withSql(
    services.databaseUrl,
    (sql) =>
      sql<{ resource_id: string; received_ms: string; processed_ms: string }[]>`
      select resource_id,
             extract(epoch from received_at) * 1000 as received_ms,
             extract(epoch from processed_at) * 1000 as processed_ms
        from inbox_events
       where resource_id < ${UNCONFIRMED_WEBHOOK_FIRST_ID} and channel = 'postback' and processed_at is not null`,
  );
  const due = new Map(result.due);
  const firstDue = result.due[0]?.[1] ?? 0;
  const total: number[] = [];
  const inside: number[] = [];
  const byWindow: number[][] = [];
  for (const row of rows) {
    const dueAt = due.get(Number(row.resource_id));
    if (dueAt === undefined) continue;
    const latency = Number(row.processed_ms) - dueAt;
    total.push(latency);
    inside.push(Number(row.processed_ms) - Number(row.received_ms));
    (byWindow[Math.floor((dueAt - firstDue) / 1000 / P99_WINDOW_SEC)] ??= []).push(latency);
  }
  return {
    offered_rps: result.offeredRps,
    duration_s: result.durationSec,
    p50_ms: round(percentile(total, 0.5)),
    p99_ms: round(percentile(total, 0.99)),
    max_ms: round(percentile(total, 1)),
    p99_ms_by_window: Array.from(byWindow, (window) => round(percentile(window ?? [], 0.99))),
    received_to_processed_p50_ms: round(percentile(inside, 0.5)),
    received_to_processed_p99_ms: round(percentile(inside, 0.99)),
    http_p50_ms: result.p50_ms,
    http_p99_ms: result.p99_ms,
    sent: result.sent,
    applied: total.length,
    failed_requests: result.failed,
    failures: result.failures,
  };
}

async function runPaced(load: PacedLoad): Promise<PacedResult> {
  const child = spawnBenchScript('e2e-load', 'load/paced.ts', [JSON.stringify(load)], {});
  const stdout = await runToEnd(child, (load.durationSec + 60) * 1000);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as PacedResult;
}
