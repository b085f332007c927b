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
  /** Webhooks still waiting for their GET when the last postback was applied. */
  readonly webhooks_still_pending: number;
}

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
    server = await startPaymirrorProcess('lanes', 'all', services, gateway.env);
    const url = server.url;
    await sendUnconfirmedWebhooks(url, webhooks);
    const latencies: number[] = [];
    for (let i = 0; i < postbacks; i += 1) {
      latencies.push(await postbackToApplied(url, services.databaseUrl, 700_000_000 + i));
    }
    const pending = await pendingWebhooks(services.databaseUrl);
    return {
      webhooks_queued: webhooks,
      gateway_max_rps: FLOOD_GATEWAY_MAX_RPS,
      postbacks,
      postback_p50_ms: round(percentile(latencies, 0.5)),
      postback_p99_ms: round(percentile(latencies, 0.99)),
      postback_max_ms: round(percentile(latencies, 1)),
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
