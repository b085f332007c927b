import type postgres from 'postgres';
import type { Plan } from '../lib/plan.js';
import { cpuBetween, snapshotCpu } from '../lib/cpu.js';
import { postbackBody } from '../lib/postbacks.js';
import { createScenarioServices, withSql } from '../lib/services.js';
import { round } from '../lib/stats.js';
import { enqueueNotifications } from '../../src/queue/catalog.js';
import { closeLaneQueues, createLaneQueues } from '../../src/queue/lanes.js';
import { sweepPendingInbox } from '../../src/scheduler/sweeper.js';

export interface SweepSummary {
  /** Pending webhooks, last enqueued an hour ago, whose jobs wait in the confirmation lane. */
  readonly webhooks_waiting: number;
  readonly pass_ms: number;
  /** CPU of the pass: this process (the sweeper), Redis, and the database's Postgres backends. */
  readonly sweeper_cpu_ms: number;
  readonly redis_cpu_ms: number;
  readonly postgres_cpu_ms: number;
  /** WAL the pass wrote (the whole cluster's, which nothing else writes meanwhile). */
  readonly wal_mb: number;
  /** Rows the pass enqueued again: none, since every row's job still waits. */
  readonly requeued: number;
}

const RETRY = { attempts: 3, backoffMs: 1000 };

/**
 * One sweeper pass while a backlog waits on the gateway budget: every pass looks at the rows
 * last enqueued more than SWEEP_AFTER_SECONDS ago, and each must be found queued and left to its
 * job. The sweeper runs here, in the bench's process, against the scenario's own database and
 * queues.
 */
export async function measureSweep(plan: Plan): Promise<SweepSummary> {
  const webhooks = plan.mode === 'quick' ? 2_000 : 20_000;
  const services = await createScenarioServices('sweep', { migrate: true });
  const lanes = createLaneQueues({ url: services.redisUrl }, () => services.queuePrefix);
  try {
    return await withSql(services.databaseUrl, async (sql) => {
      // Rows of a real delivery's size (a 1.5 KB body, as bytes and as jsonb): what an update
      // of a row writes depends on it. Stamped 50 to an instant, as the ingress's batches are.
      const body = postbackBody(1);
      const rows = await sql<{ id: string }[]>`
        insert into inbox_events (channel, event_key, raw_body, payload, body_sha256, headers,
                                  state, enqueued_at)
        select 'webhook', 'sale:' || g || ':PAGO', convert_to(${body}, 'UTF8'), ${body}::jsonb,
               'bench', '{"content-type": "application/json"}'::jsonb, 'pending',
               now() - interval '1 hour' + (g / 50) * interval '1 ms'
          from generate_series(1, ${webhooks}::int) as g
        returning id`;
      await enqueueNotifications(
        lanes.confirmation,
        rows.map((row) => Number(row.id)),
        RETRY,
      );
      const walBefore = await walPosition(sql);
      const before = await snapshotCpu([process.pid], services.databaseName);
      const started = performance.now();
      const swept = await sweepPendingInbox({
        sql,
        lanes,
        gatewayConfigured: true,
        retry: RETRY,
        afterSeconds: 30,
      });
      const passMs = performance.now() - started;
      const cpu = cpuBetween(before, await snapshotCpu([process.pid], services.databaseName));
      const walBytes = await walSince(sql, walBefore);
      return {
        webhooks_waiting: webhooks,
        pass_ms: round(passMs),
        sweeper_cpu_ms: round(cpu.server_s * 1000),
        redis_cpu_ms: round(cpu.redis_s * 1000),
        postgres_cpu_ms: round(cpu.postgres_s * 1000),
        wal_mb: round(walBytes / 1e6),
        requeued: swept.requeued,
      };
    });
  } finally {
    await closeLaneQueues(lanes);
    await services.drop();
  }
}

async function walPosition(sql: postgres.Sql): Promise<string> {
  const [row] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  return row?.lsn ?? '0/0';
}

async function walSince(sql: postgres.Sql, from: string): Promise<number> {
  const [row] = await sql<{ bytes: string }[]>`
    select pg_wal_lsn_diff(pg_current_wal_lsn(), ${from}::pg_lsn)::text as bytes`;
  return Number(row?.bytes ?? 0);
}
