import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTBACK_SECRET, WEBHOOK_TOKEN } from '../support/fixtures.js';
import { runCli, type CliRun } from '../support/cli.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import {
  createTestDatabase,
  createTestQueuePrefix,
  type TestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';
import { allApplied, ids, report, streamPostbacks, verdict } from './harness.js';

// Processes dying: a worker killed with SIGKILL mid-jobs, and a SIGTERM under load.
let db: TestDatabase;
let queue: TestQueuePrefix;

beforeAll(async () => {
  db = await createTestDatabase();
  queue = createTestQueuePrefix();
});
afterAll(async () => {
  await queue?.drop();
  await db?.drop();
});

const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: db.url,
  REDIS_URL: queue.redisUrl,
  QUEUE_PREFIX: queue.prefix,
  PORT: '0',
  HOST: '127.0.0.1',
  METRICS_PORT: '0',
  POSTBACK_SECRETS: POSTBACK_SECRET,
  WEBHOOK_TOKENS: WEBHOOK_TOKEN,
  SPOOL_DIR: mkdtempSync(join(tmpdir(), 'paymirror-spool-')),
  LOG_LEVEL: 'info',
  ...extra,
});

async function processedCount(from: number, count: number): Promise<number> {
  const [row] = await db.database.sql<{ n: number }[]>`
    select count(*)::int as n from status_history where resource_id between ${from} and ${from + count - 1}`;
  return row?.n ?? 0;
}

describe('process faults', () => {
  it('a worker killed with SIGKILL in the middle of jobs: stalled jobs run again, once', async () => {
    const ingress = await startTestPaymirror({ db, queue, roles: 'ingress' });
    let stream;
    try {
      stream = await streamPostbacks(() => ingress.url, ids(400_000, 400));
    } finally {
      await ingress.close();
    }
    const workerEnv = env({ JOB_LOCK_SECONDS: '2', WORKER_CONCURRENCY: '16' });
    const doomed = runCli(['start', '--role', 'worker', '--no-migrate'], workerEnv);
    await waitFor(async () => (await processedCount(400_000, 400)) >= 50, {
      timeoutMs: 60_000,
      what: 'the first worker to get going',
    });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const survivor = runCli(['start', '--role', 'worker,scheduler', '--no-migrate'], {
      ...workerEnv,
      SWEEP_AFTER_SECONDS: '2',
      SWEEP_INTERVAL_SECONDS: '1',
    });
    try {
      await waitFor(() => allApplied(db, stream.acknowledged), {
        timeoutMs: 90_000,
        what: 'every acknowledged delivery applied',
      });
    } finally {
      survivor.child.kill('SIGTERM');
      await survivor.exited;
    }
    const result = await verdict(db, stream.acknowledged);
    report('worker-sigkill', result);
    expect(result.accepted, stream.refusals.join('\n')).toBe(400);
    expect(result).toMatchObject({ lost: 0, duplicated: 0 });
  });

  it('SIGTERM under load: nothing acknowledged is lost, the process exits 0', async () => {
    const run: CliRun = runCli(['start'], env({ SWEEP_AFTER_SECONDS: '2' }));
    const url = (await run.waitForOutput(/"url":"(http:\/\/[^"]+)"/))[1] as string;
    let stopping = false;
    const stream = await streamPostbacks(() => url, ids(500_000, 400), {
      onSent: (sent) => {
        if (sent === 150 && !stopping) {
          stopping = true;
          run.child.kill('SIGTERM');
        }
      },
    });
    expect((await run.exited).code).toBe(0);
    expect(stream.acknowledged.length).toBeGreaterThanOrEqual(150);
    // What the drain left queued is applied by the next process: nothing acknowledged is lost.
    const next = await startTestPaymirror({
      db,
      queue,
      roles: 'worker,scheduler',
      env: { SWEEP_AFTER_SECONDS: '1' },
    });
    try {
      await waitFor(() => allApplied(db, stream.acknowledged), {
        timeoutMs: 90_000,
        what: 'every acknowledged delivery applied',
      });
    } finally {
      await next.close();
    }
    const result = await verdict(db, stream.acknowledged);
    report('sigterm-under-load', result);
    expect(result).toMatchObject({ lost: 0, duplicated: 0 });
  });
});
