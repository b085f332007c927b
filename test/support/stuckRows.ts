import type { Sql } from '../../src/db/client.js';
import { notificationJobId, type NotificationQueue } from '../../src/queue/catalog.js';
import type { Lane, LaneQueues } from '../../src/queue/lanes.js';
import { liveJobIds } from '../../src/queue/liveJobs.js';

/** Rows described one by one in a diagnosis; the rest are only counted. */
const ROWS_SHOWN = 10;
/** A process's last warnings and errors kept in a diagnosis, each cut to LINE_CHARS. */
const LINES_SHOWN = 15;
const LINE_CHARS = 400;

/**
 * Why inbox rows are still pending, for a test's failure message: the rows counted by what holds
 * them in each lane (a job that will still run, or the state of one that will not), the first
 * rows' jobs in detail (state, attempts, last error), and the processes' last warnings and
 * errors. Written so that a failure seen once, on another machine, says where to look.
 */
export async function describeStuckRows(
  sql: Sql,
  lanes: LaneQueues,
  processes: readonly { readonly name: string; output(): string }[],
): Promise<string> {
  const rows = await sql<{ id: number; channel: string; enqueuedAt: string | null }[]>`
    select id, channel, enqueued_at::text as "enqueuedAt" from inbox_events
     where state = 'pending' order by id`;
  const queues = Object.entries(lanes) as [Lane, NotificationQueue][];
  // Each lane's jobs that will still run, read page by page: getJobState scans the wait list,
  // so asking it for every row of a backlog costs Redis the backlog's size squared.
  const live = new Map<Lane, ReadonlySet<string>>();
  for (const [lane, queue] of queues) live.set(lane, await liveJobIds(queue));
  const byHolder = new Map<string, number>();
  const shown: unknown[] = [];
  for (const row of rows) {
    const jobId = notificationJobId(Number(row.id));
    const detailed = shown.length < ROWS_SHOWN;
    const holders: string[] = [];
    const jobs: Record<string, unknown> = {};
    for (const [lane, queue] of queues) {
      const runs = live.get(lane)?.has(jobId) ?? false;
      if (runs && !detailed) {
        holders.push(`${lane}:live`);
        continue;
      }
      const job = await queue.getJob(jobId);
      if (!job) continue;
      const state = await queue.getJobState(jobId);
      holders.push(`${lane}:${runs ? 'live' : state}`);
      if (!detailed) continue;
      jobs[lane] = {
        state,
        attemptsMade: job.attemptsMade,
        stalled: job.stalledCounter,
        ...(job.failedReason ? { failedReason: job.failedReason } : {}),
        ...(job.delay > 0 ? { delayMs: job.delay } : {}),
        ...(state === 'active' ? await jobLock(queue, jobId, processes) : {}),
      };
    }
    const holder = `${row.channel} ${holders.join(',') || 'no job'}`;
    byHolder.set(holder, (byHolder.get(holder) ?? 0) + 1);
    if (detailed) shown.push({ ...row, jobs });
  }
  const counts = await Promise.all(
    queues.map(async ([lane, queue]) => {
      const byState = await queue.getJobCounts();
      return [lane, Object.fromEntries(Object.entries(byState).filter(([, n]) => n > 0))];
    }),
  );
  const complaints = processes.flatMap(({ name, output }) => {
    const lines = output()
      .split('\n')
      .filter((line) => /"level":(40|50|60)/.test(line))
      .slice(-LINES_SHOWN)
      .map((line) => line.slice(0, LINE_CHARS));
    return lines.length > 0 ? [{ name, lines }] : [];
  });
  return JSON.stringify(
    {
      pending: rows.length,
      byHolder: Object.fromEntries(byHolder),
      rows: shown,
      queues: Object.fromEntries(counts),
      sessions: await busySessions(sql),
      complaints,
    },
    null,
    1,
  );
}

/**
 * An active job's lock: the process whose worker holds it (each lane worker logs its id when it
 * starts), or none (its worker stopped renewing it: the stalled check should take the job back).
 */
async function jobLock(
  queue: NotificationQueue,
  jobId: string,
  processes: readonly { readonly name: string; output(): string }[],
): Promise<Record<string, unknown>> {
  const client = await queue.client;
  const key = `${queue.toKey(jobId)}:lock`;
  const token = await client.get(key);
  if (token === null) return { lock: 'none' };
  const workerId = token.slice(0, token.lastIndexOf(':'));
  const holder = processes.find(({ output }) => output().includes(`"workerId":"${workerId}"`));
  return { lock: holder?.name ?? `held by unknown worker ${workerId}` };
}

/**
 * The database's sessions that are not idle, or hold a transaction open: what each waits on and
 * for how long, and which sessions block it.
 */
async function busySessions(sql: Sql): Promise<unknown[]> {
  return [
    ...(await sql`
      select pid, application_name as app, state, wait_event_type as "waitType",
             wait_event as "wait", pg_blocking_pids(pid) as "blockedBy",
             round(extract(epoch from now() - xact_start))::int as "transactionSeconds",
             round(extract(epoch from now() - state_change))::int as "stateSeconds",
             left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
        from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()
         and (state <> 'idle' or xact_start is not null)
       order by xact_start nulls last`),
  ];
}
