import { describe, expect, it } from 'vitest';
import { ADMIN_FAILURES_MAX } from '../../src/ingress/adminGate.js';
import { POSTBACK_SECRET, WEBHOOK_TOKEN, postbackBody, sign } from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { startTestPaymirror, waitFor } from '../support/paymirror.js';
import { useTestApp } from '../support/testApp.js';
import { createTestQueuePrefix } from '../support/services.js';

// Operating paymirror: inbox and rejects from the CLI, doctor, prune, admin UI.
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const ROTATED_SECRET = 'the-secret-we-forgot-to-configure';
// Retention trimming off: the prune test back-dates rows and must be the one to delete them.
const t = useTestApp({
  env: () => ({ ADMIN_TOKEN, REJECTS_MAX_AGE_DAYS: '3650', INBOX_RETENTION_DAYS: '0' }),
});

const sql = () => t.db.database.sql;
const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: t.db.url,
  REDIS_URL: t.queue.redisUrl,
  QUEUE_PREFIX: t.queue.prefix,
  POSTBACK_SECRETS: POSTBACK_SECRET,
  WEBHOOK_TOKENS: WEBHOOK_TOKEN,
  LOG_LEVEL: 'warn',
  ...extra,
});
async function state(id: number) {
  const [row] = await sql()<{ state: string }[]>`select state from inbox_events where id = ${id}`;
  return row?.state;
}

describe('inbox commands', () => {
  it('list filters by state and resource; show prints the raw body and kept headers', async () => {
    const raw = JSON.stringify(postbackBody({ id: 9301, status: 'PAGO' }));
    const ok = await t.app.postback(null, { raw });
    const odd = await t.app.postback(postbackBody({ id: 9302, status: 'NOT_A_STATUS' }));
    await waitFor(async () => (await state(ok.body.id as number)) === 'processed');

    const list = runCli(['inbox', 'list', '--state', 'quarantined', '--format', 'json'], env());
    expect((await list.exited).code).toBe(0);
    expect((JSON.parse(list.output()) as { id: number }[]).map((r) => r.id)).toEqual([odd.body.id]);

    const byResource = runCli(
      ['inbox', 'list', '--resource', 'sale:9301', '--since', '1h', '--format', 'json'],
      env(),
    );
    expect((await byResource.exited).code).toBe(0);
    expect(JSON.parse(byResource.output())).toMatchObject([
      { id: ok.body.id, state: 'processed', outcome: 'applied' },
    ]);

    const show = runCli(['inbox', 'show', String(ok.body.id)], env());
    expect((await show.exited).code).toBe(0);
    const detail = JSON.parse(show.output()) as {
      rawBody: string;
      headers: Record<string, string>;
      outcome: string;
    };
    expect(detail.rawBody).toBe(raw);
    expect(detail.outcome).toBe('applied');
    expect(detail.headers['content-type']).toBe('application/json');
    expect(detail.headers['x-signature']).toBeUndefined();

    const bad = runCli(['inbox', 'list', '--resource', 'sale-9301'], env());
    expect((await bad.exited).code).not.toBe(0);
    expect(bad.output()).toMatch(/sale:<id>/);
  });

  it('replay --failed runs the worker path again; a processed row is never replayed', async () => {
    const answer = await t.app.postback(postbackBody({ id: 9303, status: 'PAGO' }));
    const id = answer.body.id as number;
    await waitFor(async () => (await state(id)) === 'processed');
    // Pretend it failed for good earlier (as after JOB_ATTEMPTS), before it was applied.
    await sql()`delete from status_history where inbox_event_id = ${id}`;
    await sql()`delete from sales where id = 9303`;
    await sql()`update inbox_events set state = 'failed', outcome = 'error', last_error = 'boom' where id = ${id}`;

    const replay = runCli(['inbox', 'replay', '--failed'], env());
    expect((await replay.exited).code).toBe(0);
    expect(replay.output()).toMatch(new RegExp(`replayed 1 inbox row\\(s\\): ${id}`));
    await waitFor(async () => (await state(id)) === 'processed');
    const [sale] = await sql()`select status from sales where id = 9303`;
    expect(sale?.status).toBe('PAGO');

    const again = runCli(['inbox', 'replay', String(id)], env());
    expect({ ...(await again.exited), output: again.output() }).toMatchObject({ code: 0 });
    expect(again.output()).toMatch(/replayed 0 inbox row/);
    const history = await sql()`select 1 from status_history where resource_id = 9303`;
    expect(history).toHaveLength(1);
  });
});

describe('rejected deliveries', () => {
  it('are kept with their reason, and reverify moves them into the inbox once the secret is configured', async () => {
    const raw = JSON.stringify(postbackBody({ id: 9401, status: 'PAGO' }));
    const refused = await t.app.postback(null, { raw, signature: sign(raw, ROTATED_SECRET) });
    expect(refused.status).toBe(401);
    await t.app.webhook({ type: 'TRANSACTION' }, { token: 'a-token-nobody-configured' });
    const rows = await waitFor(async () => {
      // Recorded after the answer, each on its own: their ids need not follow the requests.
      const found = await sql()`select reason, channel from rejected_deliveries order by channel`;
      return found.length === 2 ? found : undefined;
    });
    expect(rows).toEqual([
      { reason: 'bad_signature', channel: 'postback' },
      { reason: 'unknown_token', channel: 'webhook' },
    ]);

    const list = runCli(['rejected', 'list', '--format', 'json'], env());
    expect((await list.exited).code).toBe(0);
    expect((JSON.parse(list.output()) as { reason: string }[]).map((r) => r.reason).sort()).toEqual(
      ['bad_signature', 'unknown_token'],
    );

    const still = runCli(['rejected', 'reverify'], env());
    expect((await still.exited).code).toBe(0);
    expect(still.output()).toMatch(/checked 2, moved to the inbox 0, still rejected 2/);

    const fixed = runCli(
      ['rejected', 'reverify'],
      env({ POSTBACK_SECRETS: `${POSTBACK_SECRET},${ROTATED_SECRET}` }),
    );
    expect((await fixed.exited).code).toBe(0);
    expect(fixed.output()).toMatch(/checked 2, moved to the inbox 1, still rejected 1/);
    await waitFor(async () => {
      const [sale] = await sql()`select status from sales where id = 9401`;
      return sale?.status === 'PAGO';
    });
  });
});

describe('doctor', () => {
  it('checks every dependency and prints the URLs to configure', async () => {
    const run = runCli(
      ['doctor'],
      env({ SELLER_USER_ID: '4242', PUBLIC_URL: 'https://pay.example.com' }),
    );
    expect((await run.exited).code).toBe(0);
    const output = run.output();
    for (const name of [
      'secrets',
      'postgres',
      'postgres driver',
      'migrations',
      'redis',
      'redis eviction',
      'redis persistence',
      'gateway',
    ]) {
      expect(output).toMatch(new RegExp(`^${name}\\s+(ok|warn)`, 'm'));
    }
    expect(output).toContain('https://pay.example.com/postbacks');
    expect(output).toMatch(/redis persistence\s+warn/);
    expect(output).not.toContain(POSTBACK_SECRET);
  });

  it('fails when Postgres cannot be reached', async () => {
    const run = runCli(['doctor'], env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }));
    expect((await run.exited).code).not.toBe(0);
    expect(run.output()).toMatch(
      /^postgres\s+fail\s+cannot reach Postgres at 127\.0\.0\.1:1 \(connection refused\)/m,
    );
    // Not "run paymirror migrate": the migrations cannot be told while Postgres is down.
    expect(run.output()).toMatch(/^migrations\s+fail\s+not checked: Postgres at 127\.0\.0\.1:1/m);
    expect(run.output()).not.toMatch(/run paymirror migrate/);
  });

  it("names a dead Redis and its address, not the client's retry text", async () => {
    const run = runCli(['doctor'], env({ REDIS_URL: 'redis://127.0.0.1:2' }));
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toMatch(
      /^redis\s+fail\s+cannot reach Redis \(127\.0\.0\.1:2\) \(connection refused\)/m,
    );
    expect(run.output()).toMatch(/^redis eviction\s+fail\s+not checked: Redis/m);
    expect(run.output()).not.toMatch(/maxRetriesPerRequest|Reached the max retries/);
  });
});

describe('prune', () => {
  it('deletes old processed inbox rows and old rejects, keeps mirror, history and rows that need attention', async () => {
    const kept = await t.app.postback(postbackBody({ id: 9501, status: 'PAGO' }));
    await waitFor(async () => (await state(kept.body.id as number)) === 'processed');
    const old = await t.app.postback(postbackBody({ id: 9502, status: 'PAGO' }));
    await waitFor(async () => (await state(old.body.id as number)) === 'processed');
    const quarantined = await t.app.postback(postbackBody({ id: 9503, status: 'WHO_KNOWS' }));
    await sql()`update inbox_events set processed_at = now() - interval '100 days', received_at = now() - interval '100 days'
                 where id in (${old.body.id as number}, ${quarantined.body.id as number})`;
    await sql()`update inbox_dedupe_keys set first_received_at = now() - interval '100 days' where inbox_event_id = ${old.body.id as number}`;
    await sql()`update rejected_deliveries set received_at = now() - interval '100 days'`;

    const dry = runCli(['prune', '--older-than', '90d', '--dry-run'], env());
    expect((await dry.exited).code).toBe(0);
    expect(dry.output()).toMatch(
      /would prune 1 processed inbox row\(s\), 1 dedupe key\(s\), 2 rejected/,
    );
    expect(await state(old.body.id as number)).toBe('processed');

    const run = runCli(['prune', '--older-than', '90d'], env());
    expect((await run.exited).code).toBe(0);
    expect(run.output()).toMatch(
      /pruned 1 processed inbox row\(s\), 1 dedupe key\(s\), 2 rejected/,
    );
    expect(await state(old.body.id as number)).toBeUndefined();
    expect(await state(kept.body.id as number)).toBe('processed');
    expect(await state(quarantined.body.id as number)).toBe('quarantined');
    const [history] =
      await sql()`select to_status, inbox_event_id from status_history where resource_id = 9502`;
    expect(history).toEqual({ to_status: 'PAGO', inbox_event_id: null });
    const [sale] = await sql()`select status from sales where id = 9502`;
    expect(sale?.status).toBe('PAGO');
  });
});

describe('admin UI', () => {
  it('answers 401 without the token and serves bull-board with it', async () => {
    expect((await fetch(`${t.app.metricsUrl}/admin/queues`)).status).toBe(401);
    expect(
      (
        await fetch(`${t.app.metricsUrl}/admin/queues`, {
          headers: { authorization: 'Bearer wrong-token-wrong-token' },
        })
      ).status,
    ).toBe(401);
    const bearer = await fetch(`${t.app.metricsUrl}/admin/queues`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bearer.status).toBe(200);
    expect(await bearer.text()).toMatch(/<html/i);
    const basic = Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64');
    const api = await fetch(`${t.app.metricsUrl}/admin/queues/api/queues`, {
      headers: { authorization: `Basic ${basic}` },
    });
    expect(api.status).toBe(200);
    expect(JSON.stringify(await api.json())).toContain('notifications');
  });

  const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it('is read-only by default and never framed', async () => {
    const board = await fetch(`${t.app.metricsUrl}/admin/queues`, { headers: asAdmin });
    expect(board.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(board.headers.get('x-frame-options')).toBe('DENY');
    for (const action of ['pause', 'empty', 'obliterate', 'clean/completed', 'retry/failed']) {
      const answer = await fetch(
        `${t.app.metricsUrl}/admin/queues/api/queues/notifications/${action}`,
        {
          method: 'PUT',
          headers: asAdmin,
        },
      );
      expect(answer.status, action).toBe(405);
    }
    const queues = await fetch(`${t.app.metricsUrl}/admin/queues/api/queues`, { headers: asAdmin });
    const body = (await queues.json()) as { queues: { name: string; isPaused: boolean }[] };
    expect(body.queues.find((q) => q.name === 'notifications')?.isPaused).toBe(false);
  });

  it('ADMIN_WRITE=true enables write actions', async () => {
    const writeQueue = createTestQueuePrefix();
    const writable = await startTestPaymirror({
      db: t.db,
      queue: writeQueue,
      roles: 'ingress',
      env: { ADMIN_TOKEN, ADMIN_WRITE: 'true' },
    });
    try {
      const pause = await fetch(
        `${writable.metricsUrl}/admin/queues/api/queues/notifications/pause`,
        {
          method: 'PUT',
          headers: asAdmin,
        },
      );
      expect(pause.status).toBe(200);
    } finally {
      await writable.close();
      await writeQueue.drop();
    }
  });

  it('refuses a source that keeps presenting wrong tokens, never the right one', async () => {
    const guessQueue = createTestQueuePrefix();
    const guessed = await startTestPaymirror({
      db: t.db,
      queue: guessQueue,
      roles: 'ingress',
      env: { ADMIN_TOKEN },
    });
    try {
      const wrong = { authorization: 'Bearer wrong-token-wrong-token' };
      for (let i = 0; i < ADMIN_FAILURES_MAX; i++) {
        expect((await fetch(`${guessed.metricsUrl}/admin/queues`, { headers: wrong })).status).toBe(
          401,
        );
      }
      const refused = await fetch(`${guessed.metricsUrl}/admin/queues`, { headers: wrong });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The same address with the right token: the operator is never locked out.
      const operator = await fetch(`${guessed.metricsUrl}/admin/queues`, { headers: asAdmin });
      expect(operator.status).toBe(200);
    } finally {
      await guessed.close();
      await guessQueue.drop();
    }
  });

  it('is not mounted without ADMIN_TOKEN', async () => {
    const other = await startTestPaymirror({ db: t.db, queue: t.queue, roles: 'ingress' });
    try {
      expect((await fetch(`${other.metricsUrl}/admin/queues`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('retention runs itself', () => {
  it('the scheduler deletes processed rows past INBOX_RETENTION_DAYS and keys past the dedupe window', async () => {
    const kept = await t.app.postback(postbackBody({ id: 9601, status: 'PAGO' }));
    const old = await t.app.postback(postbackBody({ id: 9602, status: 'PAGO' }));
    await waitFor(async () => (await state(old.body.id as number)) === 'processed');
    await waitFor(async () => (await state(kept.body.id as number)) === 'processed');
    await sql()`update inbox_events set processed_at = now() - interval '31 days',
                                        received_at = now() - interval '31 days'
                 where id = ${old.body.id as number}`;
    await sql()`update inbox_dedupe_keys set first_received_at = now() - interval '25 hours'
                 where inbox_event_id = ${old.body.id as number}`;

    // Nobody runs prune: a scheduler with a 30-day retention does it on its own.
    const retentionQueue = createTestQueuePrefix();
    const scheduler = await startTestPaymirror({
      db: t.db,
      queue: retentionQueue,
      roles: 'scheduler',
      env: { INBOX_RETENTION_DAYS: '30' },
    });
    try {
      await waitFor(
        async () => ((await state(old.body.id as number)) === undefined ? true : undefined),
        {
          what: 'the expired inbox row deleted',
        },
      );
      const keys = await sql()`select inbox_event_id from inbox_dedupe_keys
                                where inbox_event_id in (${old.body.id as number}, ${kept.body.id as number})`;
      expect(keys.map((key) => Number(key.inbox_event_id))).toEqual([kept.body.id]);
      expect(await state(kept.body.id as number)).toBe('processed');
      const [sale] = await sql()`select status from sales where id = 9602`;
      expect(sale?.status).toBe('PAGO');
    } finally {
      await scheduler.close();
      await retentionQueue.drop();
    }
  });
});

describe('output conventions', () => {
  const json = async (args: string[]) => {
    const run = runCli([...args, '--format', 'json'], env());
    await run.exited;
    return JSON.parse(run.stdout()) as unknown;
  };

  it('records in camelCase with ISO 8601 UTC times, as json or csv', async () => {
    const posted = await t.app.postback(postbackBody({ id: 9701, status: 'PAGO' }));
    await waitFor(async () => (await state(posted.body.id as number)) === 'processed');
    const [row] = (await json(['inbox', 'list', '--limit', '1'])) as Record<string, unknown>[];
    expect(Object.keys(row ?? {})).toEqual(expect.arrayContaining(['receivedAt', 'deliveries']));
    expect(row?.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const csv = runCli(['inbox', 'list', '--limit', '1', '--format', 'csv'], env());
    await csv.exited;
    expect(csv.stdout().split('\n')[0]).toMatch(
      /^id,channel,state,outcome,resource,status,receivedAt/,
    );
  });

  it('doctor, prune, migrate and rejected reverify take --format json too', async () => {
    const checks = (await json(['doctor'])) as { name: string; status: string }[];
    expect(checks.map((check) => check.name)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrations']),
    );
    expect(await json(['prune', '--older-than', '3650d', '--dry-run'])).toMatchObject({
      dryRun: true,
      inboxRows: 0,
      dedupeKeys: 0,
      rejected: 0,
    });
    expect(await json(['migrate'])).toMatchObject({ migrated: true });
    expect(await json(['rejected', 'reverify'])).toMatchObject({
      checked: expect.any(Number),
      moved: expect.any(Number),
      stillRejected: expect.any(Number),
    });
  });

  it('usage errors exit 2, failures 1, and --version answers', async () => {
    const usage = runCli(['prune', '--older-than', 'soon'], env());
    expect((await usage.exited).code).toBe(2);
    const failure = runCli(['inbox', 'show', '999999999'], env());
    expect((await failure.exited).code).toBe(1);
    const version = runCli(['--version'], {});
    expect((await version.exited).code).toBe(0);
    expect(version.stdout().trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('Postgres connections', () => {
  const names = async () =>
    (
      await sql()<{ name: string }[]>`
        select distinct application_name as name from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid()`
    ).map((row) => row.name);

  it("name the process's roles in pg_stat_activity, unless DATABASE_URL names them", async () => {
    for (const [extraEnv, expected, saleId] of [
      [{}, 'paymirror ingress,scheduler', 7_700_001],
      [{ DATABASE_URL: `${t.db.url}?application_name=shop-ingress` }, 'shop-ingress', 7_700_002],
    ] as const) {
      const before = new Set(await names());
      const running = await startTestPaymirror({
        db: t.db,
        queue: createTestQueuePrefix(),
        roles: 'scheduler,ingress',
        env: extraEnv,
      });
      try {
        const answer = await running.postback(postbackBody({ id: saleId, status: 'PAGO' }));
        expect(answer.status).toBe(200);
        expect((await names()).filter((name) => !before.has(name))).toEqual([expected]);
      } finally {
        await running.close();
      }
      await waitFor(async () => !(await names()).includes(expected), {
        what: 'its connections closed',
      });
    }
  });
});
