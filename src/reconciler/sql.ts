import type { Sql } from '../db/client.js';
import type { BackfillProgressRow } from '../db/rows.js';

/**
 * The reconciler's statements: its runs (`reconciliation_runs`), the fleet-wide lease a pass
 * holds (`scheduler_leases`) and the backfill's progress (`backfill_progress`).
 */

export async function insertRun(sql: Sql, trigger: string): Promise<number | null> {
  const [run] = await sql<{ id: number }[]>`
    insert into reconciliation_runs (trigger, status) values (${trigger}, 'running')
    returning id`;
  return run?.id ?? null;
}

export interface RunCounts {
  readonly checked: number;
  readonly unchanged: number;
  readonly inserted: number;
  readonly corrected: number;
  readonly notFound: number;
  readonly errors: number;
}

export async function finishRun(
  sql: Sql,
  runId: number,
  status: string,
  counts: RunCounts,
  error: string | null,
): Promise<void> {
  await sql`
    update reconciliation_runs
       set status = ${status}, checked = ${counts.checked}, unchanged = ${counts.unchanged},
           inserted = ${counts.inserted}, corrected = ${counts.corrected},
           not_found = ${counts.notFound}, errors = ${counts.errors}, error = ${error},
           finished_at = now()
     where id = ${runId}`;
}

/** Takes the lease `name` for `holder` when nobody holds it or its holder let it expire. */
export async function takeLease(
  sql: Sql,
  name: string,
  holder: string,
  seconds: number,
): Promise<boolean> {
  const rows = await sql`
    insert into scheduler_leases (name, holder, expires_at)
    values (${name}, ${holder}, now() + make_interval(secs => ${seconds}))
    on conflict (name) do update
       set holder = excluded.holder, expires_at = excluded.expires_at
     where scheduler_leases.expires_at < now()
    returning holder`;
  return rows.length === 1;
}

export async function renewLease(
  sql: Sql,
  name: string,
  holder: string,
  seconds: number,
): Promise<void> {
  await sql`
    update scheduler_leases set expires_at = now() + make_interval(secs => ${seconds})
     where name = ${name} and holder = ${holder}`;
}

export async function releaseLease(sql: Sql, name: string, holder: string): Promise<void> {
  await sql`delete from scheduler_leases where name = ${name} and holder = ${holder}`;
}

/** The progress of the backfill of sales `fromId`..`toId`, created at its start if new. */
export async function startBackfill(
  sql: Sql,
  fromId: number,
  toId: number,
): Promise<BackfillProgressRow | null> {
  await sql`
    insert into backfill_progress (resource_type, from_id, to_id, next_id)
    values ('sale', ${fromId}, ${toId}, ${fromId})
    on conflict do nothing`;
  const [progress] = await sql<BackfillProgressRow[]>`
    select resource_type as "resourceType", from_id as "fromId", to_id as "toId",
           next_id as "nextId", found, skipped, started_at as "startedAt",
           updated_at as "updatedAt", finished_at as "finishedAt"
      from backfill_progress
     where resource_type = 'sale' and from_id = ${fromId} and to_id = ${toId}`;
  return progress ?? null;
}

/** Records that the backfill probed `id` (the last of its range finishes it). */
export async function advanceBackfill(
  sql: Sql,
  range: { readonly fromId: number; readonly toId: number },
  id: number,
  totals: { readonly found: number; readonly skipped: number },
): Promise<void> {
  await sql`
    update backfill_progress
       set next_id = ${id + 1}, found = ${totals.found}, skipped = ${totals.skipped},
           updated_at = now()
           ${id === range.toId ? sql`, finished_at = now()` : sql``}
     where resource_type = 'sale' and from_id = ${range.fromId} and to_id = ${range.toId}`;
}

export interface RunRow {
  readonly id: number;
  readonly trigger: string;
  readonly status: string;
  readonly started_at: Date;
  readonly finished_at: Date | null;
  readonly checked: number;
  readonly unchanged: number;
  readonly inserted: number;
  readonly corrected: number;
  readonly not_found: number;
  readonly errors: number;
  readonly error: string | null;
}

/** A run's columns (`r`). */
function runColumns(sql: Sql) {
  return sql`r.id, r.trigger, r.status, r.started_at, r.finished_at, r.checked, r.unchanged,
             r.inserted, r.corrected, r.not_found, r.errors, r.error`;
}

/** reconciliation_runs, newest first. */
export function listReconciliationRuns(
  sql: Sql,
  page: { readonly beforeId: number | null; readonly limit: number },
): Promise<RunRow[]> {
  return sql<RunRow[]>`
    select ${runColumns(sql)}
      from reconciliation_runs r
     where true ${page.beforeId !== null ? sql`and r.id < ${page.beforeId}` : sql``}
     order by r.id desc
     limit ${page.limit}`;
}

export async function reconciliationRunById(sql: Sql, id: number): Promise<RunRow | null> {
  const [row] = await sql<RunRow[]>`
    select ${runColumns(sql)}
      from reconciliation_runs r
     where r.id = ${id}`;
  return row ?? null;
}

/** The newest reconciliation run, and the newest that succeeded. */
export async function latestReconciliationRuns(
  sql: Sql,
): Promise<{ latest: RunRow | null; lastSucceeded: RunRow | null }> {
  const rows = await sql<(RunRow & { which: 'latest' | 'succeeded' })[]>`
    (select 'latest' as which, ${runColumns(sql)}
       from reconciliation_runs r order by r.id desc limit 1)
    union all
    (select 'succeeded' as which, ${runColumns(sql)}
       from reconciliation_runs r where r.status = 'succeeded' order by r.id desc limit 1)`;
  return {
    latest: rows.find((row) => row.which === 'latest') ?? null,
    lastSucceeded: rows.find((row) => row.which === 'succeeded') ?? null,
  };
}
