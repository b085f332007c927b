import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  POSTBACK_SECRET,
  WEBHOOK_TOKEN,
  postbackBody,
  sign,
  webhookSaleBody,
} from '../support/fixtures.js';
import { createLogger } from '../../src/log/logger.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { createTestQueuePrefix } from '../support/services.js';

// /metrics after a known sequence of deliveries, on the real services: exact values.
const t = useTestApp();

/** Samples of a Prometheus text exposition, keyed `name{label="value",…}` with sorted labels. */
type Samples = Map<string, number>;

function parseExposition(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!match) throw new Error(`unparseable exposition line: ${line}`);
    const [, name = '', rawLabels = '', rawValue = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, label = '', value = ''] of rawLabels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label] = value.replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char));
    }
    const value =
      rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : Number(rawValue);
    samples.set(sampleKey(name, labels), value);
  }
  return samples;
}

function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => `${label}=${JSON.stringify(value)}`);
  return pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
}

/** Every sample of one metric name, keyed as sampleKey() does. */
function family(samples: Samples, name: string): Record<string, number> {
  return Object.fromEntries([...samples].filter(([key]) => key.split('{')[0] === name));
}

async function scrape(): Promise<{ text: string; samples: Samples }> {
  const response = await fetch(`${t.app.metricsUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  return { text, samples: parseExposition(text) };
}

describe('parseExposition', () => {
  it('reads names, labels (escaped quotes too) and special values', () => {
    const samples = parseExposition(
      [
        '# HELP x_total help',
        '# TYPE x_total counter',
        'x_total{b="2",a="say \\"hi\\""} 3',
        'y_bucket{le="+Inf"} 4',
        'z NaN',
        'w 1.5e-3',
      ].join('\n'),
    );
    expect([...samples]).toEqual([
      ['x_total{a="say \\"hi\\"",b="2"}', 3],
      ['y_bucket{le="+Inf"}', 4],
      ['z', NaN],
      ['w', 0.0015],
    ]);
  });
});

describe('/metrics after a known sequence of deliveries', () => {
  it('counts each outcome exactly once, drains to zero, and exposes no secret', async () => {
    const startedAt = Date.now();
    const accepted: number[] = [];
    for (const sale of [
      { id: 8101, status: 'PAGO' },
      { id: 8102, status: 'PENDENTE', paymentMethod: 'BOLETO' },
    ]) {
      const answer = await t.app.postback(postbackBody(sale));
      expect(answer.body.status).toBe('accepted');
      accepted.push(answer.body.id as number);
    }
    const lastAcceptedSentAt = Date.now();
    const third = await t.app.postback(
      postbackBody({ id: 8103, status: 'PAGO', paymentMethod: 'CREDIT_CARD' }),
    );
    expect(third.body.status).toBe('accepted');
    accepted.push(third.body.id as number);

    const duplicate = await t.app.postback(postbackBody({ id: 8101, status: 'PAGO' }));
    expect(duplicate.body).toEqual({ status: 'duplicate', id: accepted[0] });

    const quarantined = await t.app.postback(postbackBody({ id: 8104, status: 'NOT_A_STATUS' }));
    expect(quarantined.status).toBe(200);
    expect(quarantined.body.status).toBe('quarantined');

    const forgedRaw = JSON.stringify(postbackBody({ id: 8105, status: 'PAGO' }));
    const badSignature = await t.app.postback(null, {
      raw: forgedRaw,
      signature: sign(forgedRaw, 'not-the-configured-secret-0000'),
    });
    expect(badSignature.status).toBe(401);

    const unknownTokenValue = 'unknown-token-0123456789abcdefgh';
    const unknownToken = await t.app.webhook(webhookSaleBody({ id: 8106, status: 'PAGO' }), {
      token: unknownTokenValue,
    });
    expect(unknownToken.status).toBe(404);

    const foreignUser = await t.app.webhook(
      webhookSaleBody({ id: 8107, status: 'PAGO', userId: 999_999 }),
    );
    expect(foreignUser.status).toBe(403);

    // The worker is done when every accepted row is finished and has been counted.
    await waitFor(
      async () => {
        const [row] = await t.db.database.sql<{ pending: number }[]>`
          select count(*)::int as pending from inbox_events
           where id = any(${accepted}::bigint[]) and state = 'pending'`;
        if (row?.pending !== 0) return false;
        const { samples } = await scrape();
        const finished = Object.values(family(samples, 'paymirror_worker_outcomes_total'));
        return finished.reduce((sum, n) => sum + n, 0) >= accepted.length;
      },
      { what: 'the worker to finish the accepted deliveries' },
    );

    const { text, samples } = await scrape();
    const scrapedAt = Date.now();

    expect(family(samples, 'paymirror_deliveries_total')).toEqual({
      [sampleKey('paymirror_deliveries_total', {
        channel: 'postback',
        outcome: 'accepted',
        reason: '',
      })]: 3,
      [sampleKey('paymirror_deliveries_total', {
        channel: 'postback',
        outcome: 'duplicate',
        reason: '',
      })]: 1,
      [sampleKey('paymirror_deliveries_total', {
        channel: 'postback',
        outcome: 'quarantined',
        reason: '',
      })]: 1,
      [sampleKey('paymirror_deliveries_total', {
        channel: 'postback',
        outcome: 'rejected',
        reason: 'bad_signature',
      })]: 1,
      [sampleKey('paymirror_deliveries_total', {
        channel: 'webhook',
        outcome: 'rejected',
        reason: 'unknown_token',
      })]: 1,
      [sampleKey('paymirror_deliveries_total', {
        channel: 'webhook',
        outcome: 'rejected',
        reason: 'foreign_user',
      })]: 1,
    });
    // Quarantined at the ingress: stored, never queued, so the worker saw only the 3 accepted.
    expect(family(samples, 'paymirror_worker_outcomes_total')).toEqual({
      [sampleKey('paymirror_worker_outcomes_total', { outcome: 'applied', resource: 'sale' })]: 3,
    });

    expect(samples.get('paymirror_accept_to_applied_seconds_count')).toBe(3);
    expect(
      samples.get(sampleKey('paymirror_accept_to_applied_seconds_bucket', { le: '+Inf' })),
    ).toBe(3);
    const latencySum = samples.get('paymirror_accept_to_applied_seconds_sum') ?? NaN;
    expect(latencySum).toBeGreaterThanOrEqual(0);
    expect(latencySum).toBeLessThanOrEqual((3 * (scrapedAt - startedAt)) / 1000);

    expect(samples.get('paymirror_inbox_oldest_pending_age_seconds')).toBe(0);
    // BullMQ adds `paused` to the states asked for (waiting, active, delayed, failed): all 0.
    const queueJobs = family(samples, 'paymirror_queue_jobs');
    for (const queue of ['notifications', 'confirmations']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(queueJobs[sampleKey('paymirror_queue_jobs', { queue, state })], state).toBe(0);
      }
      expect(samples.get(sampleKey('paymirror_queue_oldest_waiting_age_seconds', { queue }))).toBe(
        0,
      );
    }
    expect(
      Object.values(queueJobs).every((count) => count === 0),
      JSON.stringify(queueJobs),
    ).toBe(true);
    expect(samples.get('paymirror_sweeper_requeued_total')).toBe(0);

    // The silence detector counts from the last accepted delivery, not the later rejected ones.
    const silence = samples.get('paymirror_seconds_since_last_accepted');
    expect(silence).toBeGreaterThanOrEqual(0);
    expect(silence).toBeLessThanOrEqual((scrapedAt - lastAcceptedSentAt) / 1000);

    // No gateway keys in this test: no calls, no passes; unlabelled counters are at 0.
    expect(family(samples, 'paymirror_gateway_calls_total')).toEqual({});
    expect(samples.get('paymirror_reconcile_discrepancies_total')).toBe(0);
    expect(samples.get('paymirror_process_resident_memory_bytes')).toBeGreaterThan(0);

    for (const secret of [POSTBACK_SECRET, WEBHOOK_TOKEN, unknownTokenValue]) {
      expect(text).not.toContain(secret);
    }
  });

  it('the silence detector restarts on the next accepted delivery only', async () => {
    const before = (await scrape()).samples.get('paymirror_seconds_since_last_accepted') ?? NaN;
    const duplicate = await t.app.postback(postbackBody({ id: 8101, status: 'PAGO' }));
    expect(duplicate.body.status).toBe('duplicate');
    const afterDuplicate = (await scrape()).samples.get('paymirror_seconds_since_last_accepted');
    expect(afterDuplicate).toBeGreaterThanOrEqual(before);

    const sentAt = Date.now();
    const fresh = await t.app.postback(postbackBody({ id: 8108, status: 'PAGO' }));
    expect(fresh.body.status).toBe('accepted');
    const { samples } = await scrape();
    expect(samples.get('paymirror_seconds_since_last_accepted')).toBeLessThanOrEqual(
      (Date.now() - sentAt) / 1000,
    );
    expect(
      samples.get(
        sampleKey('paymirror_deliveries_total', {
          channel: 'postback',
          outcome: 'accepted',
          reason: '',
        }),
      ),
    ).toBe(4);
  });
});

describe('cheap to observe', () => {
  it('reads Postgres and Redis once per METRICS_CACHE_SECONDS, however many scrape', async () => {
    const cachedQueue = createTestQueuePrefix();
    const cached = await startTestPaymirror({
      db: t.db,
      queue: cachedQueue,
      env: { METRICS_CACHE_SECONDS: '3600' },
    });
    try {
      const scrape = async () => (await fetch(`${cached.metricsUrl}/metrics`)).text();
      // Eight scrapers at once, then eight more one after another.
      await Promise.all(Array.from({ length: 8 }, scrape));
      for (let i = 0; i < 7; i++) await scrape();
      const text = await scrape();
      const reads = [
        ...text.matchAll(/^paymirror_metric_source_reads_total\{source="(\w+)"\} (\d+)$/gm),
      ];
      expect(reads.map((read) => read[1]).sort()).toEqual(
        [
          'cashoutsUnresolved',
          'inboxCounts',
          'oldestPendingAgeSeconds',
          'queueCounts',
          'queueOldestAgeSeconds',
          'recordsNeedingAttention',
          'spoolPending',
        ].sort(),
      );
      for (const read of reads) expect(Number(read[2]), read[1]).toBe(1);
      expect(text).toMatch(/^paymirror_inbox_rows\{state="pending"\} \d+$/m);
    } finally {
      await cached.close();
      await cachedQueue.drop();
    }
  });

  it('/metrics, bull-board and the console are on the admin listener; the public port has none', async () => {
    const apartQueue = createTestQueuePrefix();
    const apart = await startTestPaymirror({
      db: t.db,
      queue: apartQueue,
      env: { ADMIN_TOKEN: 'admin-token-0123456789abcdef' },
    });
    try {
      expect(apart.metricsUrl).not.toBe(apart.url);
      for (const path of ['/metrics', '/admin/queues', '/console', '/console/sales/1']) {
        expect((await fetch(`${apart.url}${path}`)).status, path).toBe(404);
      }
      expect((await fetch(`${apart.url}/healthz`)).status).toBe(200);
      expect((await apart.postback(postbackBody({ id: 99_101, status: 'PAGO' }))).status).toBe(200);
      const metrics = await fetch(`${apart.metricsUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/paymirror_deliveries_total/);
      expect((await fetch(`${apart.metricsUrl}/admin/queues`)).status).toBe(401);
      expect((await fetch(`${apart.metricsUrl}/console`)).status).toBe(401);
      expect((await fetch(`${apart.metricsUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${apart.metricsUrl}/postbacks`, { method: 'POST' })).status).toBe(404);
    } finally {
      await apart.close();
      await apartQueue.drop();
    }
  });

  it('METRICS_PORT set to PORT puts the admin routes on the public listener', async () => {
    const port = await freePort();
    const sharedQueue = createTestQueuePrefix();
    const shared = await startTestPaymirror({
      db: t.db,
      queue: sharedQueue,
      env: { PORT: String(port), METRICS_PORT: String(port) },
    });
    try {
      expect(shared.metricsUrl).toBe(shared.url);
      expect(shared.url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${shared.url}/metrics`)).status).toBe(200);
      expect((await shared.postback(postbackBody({ id: 99_102, status: 'PAGO' }))).status).toBe(
        200,
      );
    } finally {
      await shared.close();
      await sharedQueue.drop();
    }
  });

  it('a client sending hundreds of bad requests makes one log line, not hundreds', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const noisyQueue = createTestQueuePrefix();
    const noisy = await startTestPaymirror({
      db: t.db,
      queue: noisyQueue,
      roles: 'ingress',
      logger,
    });
    try {
      for (let i = 0; i < 200; i++) {
        const answer = await noisy.post('/postbacks', 'not json', { 'content-type': 'text/plain' });
        expect(answer.status).toBe(415);
      }
      expect(lines.filter((line) => line.msg === 'delivery rejected')).toHaveLength(1);
    } finally {
      await noisy.close();
      await noisyQueue.drop();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
