import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/config.js';
import type { Sql } from '../../src/db/client.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { parseRoles } from '../../src/runtime/roles.js';
import { startPaymirror, type RunningPaymirror } from '../../src/runtime/startPaymirror.js';
import { POSTBACK_SECRET, SELLER_USER_ID, WEBHOOK_TOKEN, postbackBody, sign } from './fixtures.js';
import type { TestDatabase, TestQueuePrefix } from './services.js';

export interface TestPaymirror extends RunningPaymirror {
  postback(body: unknown, options?: PostOptions): Promise<Answer>;
  webhook(body: unknown, options?: PostOptions & { token?: string }): Promise<Answer>;
  post(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer>;
}

export interface PostOptions {
  signature?: string | null;
  contentType?: string;
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** Starts paymirror in this process on a free port, against the test file's own services. */
export async function startTestPaymirror(options: {
  db: TestDatabase;
  queue: TestQueuePrefix;
  roles?: string;
  env?: Record<string, string>;
  logger?: Logger;
}): Promise<TestPaymirror> {
  const spoolDir = mkdtempSync(join(tmpdir(), 'paymirror-spool-'));
  const config = parseConfig({
    SPOOL_DIR: spoolDir,
    DATABASE_URL: options.db.url,
    REDIS_URL: options.queue.redisUrl,
    QUEUE_PREFIX: options.queue.prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    // The admin listener (/metrics, bull-board, the console) on a free port of its own:
    // `metricsUrl`. Its default, 9090, would be taken by the first test file to start.
    METRICS_PORT: '0',
    POSTBACK_SECRETS: POSTBACK_SECRET,
    WEBHOOK_TOKENS: WEBHOOK_TOKEN,
    SELLER_USER_ID: String(SELLER_USER_ID),
    SWEEP_INTERVAL_SECONDS: '1',
    JOB_BACKOFF_MS: '20',
    DB_POOL_MAX: '5',
    // Tests read gauges right after what changes them; the cache has a test of its own.
    METRICS_CACHE_SECONDS: '0',
    ...options.env,
  });
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const running = await startPaymirror(config, parseRoles(options.roles ?? 'all'), logger);

  const post = async (path: string, body: string | Buffer, headers: Record<string, string>) => {
    const response = await fetch(`${running.url}${path}`, { method: 'POST', body, headers });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { text };
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    ...running,
    async close() {
      await running.close();
      rmSync(spoolDir, { recursive: true, force: true });
    },
    post,
    postback(body, opts = {}) {
      const raw = opts.raw ?? JSON.stringify(body);
      const signature = opts.signature === undefined ? sign(raw) : opts.signature;
      return post('/postbacks', raw, {
        'content-type': opts.contentType ?? 'application/json',
        ...(signature === null ? {} : { 'x-signature': signature }),
        ...opts.headers,
      });
    },
    webhook(body, opts = {}) {
      const raw = opts.raw ?? JSON.stringify(body);
      return post(`/webhooks/${opts.token ?? WEBHOOK_TOKEN}`, raw, {
        'content-type': opts.contentType ?? 'application/json',
        ...opts.headers,
      });
    },
  };
}

/**
 * Accepts a PAGO postback for `saleId` through an ingress alone, then stops it: the inbox row is
 * pending and its job waits, with no worker to take it. Returns the inbox row's id.
 */
export async function acceptWithoutWorker(
  services: { db: TestDatabase; queue: TestQueuePrefix },
  saleId: number,
): Promise<number> {
  const ingress = await startTestPaymirror({ ...services, roles: 'ingress' });
  try {
    const answer = await ingress.postback(postbackBody({ id: saleId, status: 'PAGO' }));
    if (answer.body.status !== 'accepted') {
      throw new Error(`postback for sale ${saleId} answered ${JSON.stringify(answer.body)}`);
    }
    return answer.body.id as number;
  } finally {
    await ingress.close();
  }
}

/** `count` calls of `send`, `width` at a time (a flood that does not open thousands of sockets). */
export async function inWaves<T>(
  count: number,
  width: number,
  send: (i: number) => Promise<T>,
): Promise<T[]> {
  const answers: T[] = [];
  for (let start = 0; start < count; start += width) {
    const wave = Array.from({ length: Math.min(width, count - start) }, (_, k) => send(start + k));
    answers.push(...(await Promise.all(wave)));
  }
  return answers;
}

/** Polls until `check` returns a value other than undefined/false, or fails after the deadline. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 15_000, intervalMs = 25, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until the inbox row is no longer pending; its state and outcome. */
export function inboxRowFinished(
  sql: Sql,
  inboxId: number,
): Promise<{ state: string; outcome: string | null }> {
  return waitFor(
    async () => {
      const rows = await sql<{ state: string; outcome: string | null }[]>`
        select state, outcome from inbox_events where id = ${inboxId}`;
      return rows[0] && rows[0].state !== 'pending' ? rows[0] : undefined;
    },
    { what: `inbox row ${inboxId} to finish` },
  );
}
