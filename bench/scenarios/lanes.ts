import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Plan } from '../lib/plan.js';
import { BENCH_WEBHOOK_TOKEN, postbackBody, postbackHeaders } from '../lib/postbacks.js';
import { stopChild } from '../lib/processes.js';
import { startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, withSql } from '../lib/services.js';
import { percentile, round } from '../lib/stats.js';

export interface LanesSummary {
  /** Unconfirmed webhooks queued before the signed postbacks were sent. */
  readonly webhooks_queued: number;
  readonly gateway_max_rps: number;
  /** Signed postbacks sent one after another while the webhooks wait. */
  readonly postbacks: number;
  /** Request sent → inbox row processed, for the signed postbacks. */
  readonly postback_p50_ms: number;
  readonly postback_p99_ms: number;
  readonly postback_max_ms: number;
  /** Webhooks still waiting for their GET when the last postback was applied. */
  readonly webhooks_still_pending: number;
}

const MAX_RPS = 5;

/**
 * The lanes issue's acceptance scenario: 1,500 webhooks for ids the gateway does not know (a
 * leaked URL) wait in the confirmation lane, where they drain at GATEWAY_MAX_RPS; meanwhile
 * new signed postbacks must be applied as fast as on a quiet system.
 */
export async function measureLanes(plan: Plan): Promise<LanesSummary> {
  const webhooks = plan.mode === 'quick' ? 300 : 1500;
  const postbacks = plan.mode === 'quick' ? 10 : 40;
  const gateway = await startNotFoundGateway();
  const services = await createScenarioServices('lanes', { migrate: true });
  let server: Server | null = null;
  try {
    server = await startPaymirrorProcess('lanes', 'all', services, {
      GATEWAY_BASE_URL: gateway.url,
      GATEWAY_PUBLIC_KEY: 'bench-public-key',
      GATEWAY_PRIVATE_KEY: 'bench-private-key-0123456789',
      GATEWAY_MAX_RPS: String(MAX_RPS),
      RECONCILE_INTERVAL_SECONDS: '3600',
    });
    const url = server.url;
    for (let first = 0; first < webhooks; first += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, webhooks - first) }, (_, i) =>
          sendWebhook(url, 800_000_000 + first + i),
        ),
      );
    }
    const latencies: number[] = [];
    for (let i = 0; i < postbacks; i += 1) {
      latencies.push(await postbackToApplied(url, services.databaseUrl, 700_000_000 + i));
    }
    const pending = await withSql(services.databaseUrl, async (sql) => {
      const [row] = await sql<{ n: string }[]>`
        select count(*) as n from inbox_events where channel = 'webhook' and state = 'pending'`;
      return Number(row?.n ?? 0);
    });
    return {
      webhooks_queued: webhooks,
      gateway_max_rps: MAX_RPS,
      postbacks,
      postback_p50_ms: round(percentile(latencies, 0.5)),
      postback_p99_ms: round(percentile(latencies, 0.99)),
      postback_max_ms: round(percentile(latencies, 1)),
      webhooks_still_pending: pending,
    };
  } finally {
    if (server) await stopChild(server.child);
    await services.drop();
    await new Promise((resolve) => gateway.server.close(resolve));
  }
}

async function sendWebhook(url: string, id: number): Promise<void> {
  const body = JSON.parse(postbackBody(id)) as Record<string, unknown>;
  delete body.externalTransactionId;
  const answer = await fetch(`${url}/webhooks/${BENCH_WEBHOOK_TOKEN}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, fee: 150, transactionId: id, type: 'TRANSACTION' }),
  });
  if (answer.status !== 200) throw new Error(`webhook ${id} answered ${answer.status}`);
}

async function postbackToApplied(url: string, databaseUrl: string, id: number): Promise<number> {
  const body = postbackBody(id);
  const sentAt = performance.now();
  const answer = await fetch(`${url}/postbacks`, {
    method: 'POST',
    headers: postbackHeaders(body),
    body,
  });
  const { id: inboxId } = (await answer.json()) as { id: number };
  await withSql(databaseUrl, async (sql) => {
    for (;;) {
      const [row] = await sql<{ state: string }[]>`
        select state from inbox_events where id = ${inboxId}`;
      if (row?.state === 'processed') return;
      if (performance.now() - sentAt > 600_000) throw new Error(`postback ${id} never applied`);
      await sleep(2);
    }
  });
  return performance.now() - sentAt;
}

/** Answers every GET as the gateway does for an id it does not know (404, shape B). */
async function startNotFoundGateway(): Promise<{ server: HttpServer; url: string }> {
  const server = createServer((_request, response) => {
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: 'Transaction not found', error: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
