import { setTimeout as sleep } from 'node:timers/promises';
import type { Plan } from '../lib/plan.js';
import { postbackBody, postbackHeaders } from '../lib/postbacks.js';
import { stopChild } from '../lib/processes.js';
import { startPaymirrorProcess, type Server } from '../lib/servers.js';
import { createScenarioServices, withSql } from '../lib/services.js';
import { percentile, round } from '../lib/stats.js';
import {
  FLOOD_GATEWAY_MAX_RPS,
  pendingWebhooks,
  sendSaleWebhook,
  sendUnconfirmedWebhooks,
  startNotFoundGateway,
} from '../lib/unconfirmedWebhooks.js';

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
  /**
   * Genuine webhooks (about the sales the postbacks made known) sent one after another while
   * the forged ones wait: request sent → confirmed by its GET and processed.
   */
  readonly genuine_webhooks: number;
  readonly genuine_webhook_p50_ms: number;
  readonly genuine_webhook_p99_ms: number;
  readonly genuine_webhook_max_ms: number;
  /** Forged webhooks still waiting for their GET when the last genuine one was confirmed. */
  readonly webhooks_still_pending: number;
}

/**
 * A leaked webhook URL: 1,500 webhooks for ids the gateway does not know wait in the lane of
 * unknown ids, where they drain within their part of GATEWAY_MAX_RPS; meanwhile new signed
 * postbacks must be applied as fast as on a quiet system, and a genuine webhook about a sale
 * the mirror knows confirmed with one GET, not after the forged ones.
 */
export async function measureLanes(plan: Plan): Promise<LanesSummary> {
  const webhooks = plan.mode === 'quick' ? 300 : 1500;
  const postbacks = plan.mode === 'quick' ? 10 : 40;
  const gateway = await startNotFoundGateway();
  const services = await createScenarioServices('lanes', { migrate: true });
  let server: Server | null = null;
  try {
    server = await startPaymirrorProcess('lanes', 'all', services, gateway.env);
    const url = server.url;
    await sendUnconfirmedWebhooks(url, webhooks);
    const latencies: number[] = [];
    for (let i = 0; i < postbacks; i += 1) {
      latencies.push(await postbackToApplied(url, services.databaseUrl, 700_000_000 + i));
    }
    const genuine: number[] = [];
    for (let i = 0; i < postbacks; i += 1) {
      genuine.push(await webhookToConfirmed(url, services.databaseUrl, 700_000_000 + i));
    }
    const pending = await pendingWebhooks(services.databaseUrl);
    return {
      webhooks_queued: webhooks,
      gateway_max_rps: FLOOD_GATEWAY_MAX_RPS,
      postbacks,
      postback_p50_ms: round(percentile(latencies, 0.5)),
      postback_p99_ms: round(percentile(latencies, 0.99)),
      postback_max_ms: round(percentile(latencies, 1)),
      genuine_webhooks: genuine.length,
      genuine_webhook_p50_ms: round(percentile(genuine, 0.5)),
      genuine_webhook_p99_ms: round(percentile(genuine, 0.99)),
      genuine_webhook_max_ms: round(percentile(genuine, 1)),
      webhooks_still_pending: pending,
    };
  } finally {
    if (server) await stopChild(server.child);
    await services.drop();
    await gateway.close();
  }
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
  await processed(databaseUrl, inboxId, sentAt, `postback ${id}`);
  return performance.now() - sentAt;
}

/** A webhook about a sale the mirror knows: sent → read from the gateway and processed. */
async function webhookToConfirmed(url: string, databaseUrl: string, id: number): Promise<number> {
  const sentAt = performance.now();
  const inboxId = await sendSaleWebhook(url, id);
  await processed(databaseUrl, inboxId, sentAt, `webhook ${id}`);
  return performance.now() - sentAt;
}

async function processed(
  databaseUrl: string,
  inboxId: number,
  sentAt: number,
  what: string,
): Promise<void> {
  await withSql(databaseUrl, async (sql) => {
    for (;;) {
      const [row] = await sql<{ state: string }[]>`
        select state from inbox_events where id = ${inboxId}`;
      if (row?.state === 'processed') return;
      if (performance.now() - sentAt > 600_000) throw new Error(`${what} never processed`);
      await sleep(2);
    }
  });
}
