/**
 * `npm run soak -- --minutes N [--rate 300]`: paymirror (all roles, as `bin/paymirror start`)
 * under a steady stream of signed postbacks in the gateway's wire format, with duplicates and
 * reordered pairs (a refund sent before its payment), for N minutes. Reports RSS over time,
 * the backlog, and lost and duplicated transitions; exits 1 unless RSS stayed flat, the
 * backlog drained and both counts are zero. Uses its own database (paymirror_soak, emptied
 * first) and queue prefix on the local Postgres and Redis.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { runMigrations } from '../../src/db/migrate.js';
import { POSTBACK_SECRET, WEBHOOK_TOKEN, postbackBody, sign } from '../support/fixtures.js';

const args = z
  .object({
    minutes: z.coerce.number().positive().max(240).default(10),
    rate: z.coerce.number().int().positive().max(5000).default(300),
  })
  .parse(
    Object.fromEntries(
      process.argv
        .slice(2)
        .join(' ')
        .split('--')
        .filter(Boolean)
        .map((part) => part.trim().split(/\s+/)),
    ),
  );

const DATABASE_URL =
  process.env.SOAK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/paymirror_soak';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `paymirror-soak-${process.pid}`;
const DUPLICATE = 0.1;
const REFUND = 0.3;
const REORDER = 0.5;

async function main(): Promise<number> {
  await runMigrations(DATABASE_URL);
  const sql = postgres(DATABASE_URL, { max: 2, onnotice: () => {} });
  await sql.unsafe(
    'truncate sales, sale_items, withdrawals, status_history, inbox_events, inbox_dedupe_keys, rejected_deliveries, reconciliation_discrepancies, reconciliation_runs restart identity cascade',
  );
  const child = spawn('bin/paymirror', ['start', '--no-migrate'], {
    env: {
      ...process.env,
      DATABASE_URL,
      REDIS_URL,
      QUEUE_PREFIX: PREFIX,
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      POSTBACK_SECRETS: POSTBACK_SECRET,
      WEBHOOK_TOKENS: WEBHOOK_TOKEN,
      SELLER_USER_ID: '4242',
      SPOOL_DIR: mkdtempSync(join(tmpdir(), 'paymirror-soak-spool-')),
      // info: the "paymirror started" line carries the URL.
      LOG_LEVEL: 'info',
      TRANSITIONS_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`paymirror exited early:\n${out}`)));
  });
  /** Statuses the ingress acknowledged per sale: only those must reach the mirror. */
  const acknowledged = new Map<number, Set<string>>();
  const rss: { minute: number; mb: number; backlog: number }[] = [];
  let sent = 0;
  let failed = 0;
  let inFlight = 0;
  const post = async (id: number, status: string) => {
    inFlight += 1;
    const raw = JSON.stringify(postbackBody({ id, status }));
    const ok = await fetch(`${url}/postbacks`, {
      method: 'POST',
      body: raw,
      headers: { 'content-type': 'application/json', 'x-signature': sign(raw) },
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status === 200;
      },
      () => false,
    );
    inFlight -= 1;
    sent += 1;
    if (!ok) failed += 1;
    else acknowledged.set(id, (acknowledged.get(id) ?? new Set()).add(status));
  };

  const started = Date.now();
  const endAt = started + args.minutes * 60_000;
  let nextId = 1;
  let nextSample = started;
  while (Date.now() < endAt) {
    const tickStart = Date.now();
    // One tick of 100 ms carries rate/10 notifications.
    for (let n = 0; n < args.rate / 10;) {
      const id = nextId++;
      const refunded = Math.random() < REFUND;
      const events = refunded ? ['PAGO', 'ESTORNADO'] : ['PAGO'];
      if (refunded && Math.random() < REORDER) events.reverse();
      for (const status of events) {
        // Past 200 requests in flight the rate is more than this machine takes: count, skip.
        if (inFlight < 200) void post(id, status);
        else failed += 1;
        if (Math.random() < DUPLICATE) void post(id, status);
        n += 1;
      }
    }
    if (Date.now() >= nextSample) {
      rss.push({
        minute: (Date.now() - started) / 60_000,
        mb: rssMb(child.pid),
        backlog: await backlog(sql),
      });
      process.stderr.write(
        `\rsoak: ${((Date.now() - started) / 60_000).toFixed(1)} min, ${sent} sent, RSS ${rss.at(-1)?.mb} MB, backlog ${rss.at(-1)?.backlog}   `,
      );
      nextSample += 30_000;
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 100 - (Date.now() - tickStart))),
    );
  }
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const drainDeadline = Date.now() + 120_000;
  while ((await backlog(sql)) > 0 && Date.now() < drainDeadline)
    await new Promise((resolve) => setTimeout(resolve, 500));
  const finalBacklog = await backlog(sql);
  rss.push({
    minute: (Date.now() - started) / 60_000,
    mb: rssMb(child.pid),
    backlog: finalBacklog,
  });

  const mirror = new Map(
    (await sql<{ id: string; status: string }[]>`select id, status from sales`).map((r) => [
      Number(r.id),
      r.status,
    ]),
  );
  const expected = [...acknowledged].map(
    ([id, statuses]) => [id, statuses.has('ESTORNADO') ? 'ESTORNADO' : 'PAGO'] as const,
  );
  const lost = expected.filter(([id, status]) => mirror.get(id) !== status).length;
  const [dup] = await sql<{ n: number }[]>`
    select coalesce(sum(n - 1), 0)::int as n from (
      select count(*) as n from status_history group by resource_id, to_status) t`;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  const redis = new Redis(REDIS_URL);
  for (const key of await redis.keys(`${PREFIX}:*`)) await redis.del(key);
  redis.disconnect();
  await sql.end();

  const third = Math.max(1, Math.floor(rss.length / 3));
  const middle = average(rss.slice(third, 2 * third).map((s) => s.mb));
  const last = average(rss.slice(-third).map((s) => s.mb));
  const growth = middle > 0 ? (last - middle) / middle : 0;
  process.stderr.write('\n');
  console.log(
    `soak ${args.minutes} min at ${args.rate}/s: ${sent} requests (${failed} not acknowledged), ${expected.length} sales`,
  );
  console.log('minute  rss_mb  backlog');
  for (const sample of rss)
    console.log(
      `${sample.minute.toFixed(1).padStart(6)}  ${String(sample.mb).padStart(6)}  ${String(sample.backlog).padStart(7)}`,
    );
  console.log(
    `RSS middle third ${middle.toFixed(0)} MB, last third ${last.toFixed(0)} MB (${(growth * 100).toFixed(1)} %)`,
  );
  console.log(`backlog at the end ${finalBacklog}, lost ${lost}, duplicated ${dup?.n ?? 0}`);
  const ok = lost === 0 && (dup?.n ?? 0) === 0 && finalBacklog === 0 && growth < 0.2;
  console.log(ok ? 'soak: OK' : 'soak: FAILED');
  return ok ? 0 : 1;
}

async function backlog(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from inbox_events where state = 'pending'`;
  return row?.n ?? 0;
}

function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

function average(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
