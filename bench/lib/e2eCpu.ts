import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cpuBetween, secondsGrown, snapshotCpu, type CpuSnapshot } from './cpu.js';
import type { Server } from './servers.js';
import { withSql } from './services.js';
import { round } from './stats.js';

/**
 * Where the CPU of an e2e run went, in µs per request sent: each paymirror process, its
 * Postgres backends (told apart by the application_name paymirror gives its connections),
 * Redis, and the machine as a whole against what its cores could give. At a fixed offered
 * rate the machine's busy share is what sets the queueing, so the tail.
 */
export interface E2eCpu {
  /** By the process's name (e2e-ingress, e2e-worker). */
  readonly processes_us: Record<string, number>;
  /** By application_name; `other` is Postgres's own processes and backends gone meanwhile. */
  readonly postgres_us: Record<string, number>;
  readonly redis_us: number;
  readonly machine_busy_us: number;
  /** The cores' whole time over the run, per request: busy_us / capacity_us is the load. */
  readonly machine_capacity_us: number;
}

interface Mark {
  readonly at: number;
  readonly snapshot: CpuSnapshot;
}

/** The CPU so far of the servers, of their database's backends, of Redis and the machine. */
export async function markCpu(servers: readonly Server[]): Promise<Mark> {
  const snapshot = await snapshotCpu(
    servers.map((server) => server.child.pid),
    servers[0]?.databaseName ?? null,
  );
  return { at: performance.now(), snapshot };
}

export async function e2eCpu(
  servers: readonly Server[],
  databaseUrl: string,
  before: Mark,
  after: Mark,
  requests: number,
): Promise<E2eCpu> {
  const perRequest = (seconds: number) => round((seconds / Math.max(requests, 1)) * 1e6, 0);
  const total = cpuBetween(before.snapshot, after.snapshot);
  const processes_us: Record<string, number> = {};
  for (const { child } of servers) {
    const seconds = secondsGrown(before.snapshot.server, after.snapshot.server, child.pid);
    processes_us[child.name] = perRequest(seconds);
  }
  const clients = await withSql(
    databaseUrl,
    (sql) => sql<{ pid: number; name: string }[]>`
      select pid, application_name as name from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()`,
  );
  const byClient = new Map<string, number>();
  let named = 0;
  for (const { pid, name } of clients) {
    const seconds = secondsGrown(before.snapshot.postgres, after.snapshot.postgres, pid);
    named += seconds;
    byClient.set(name, (byClient.get(name) ?? 0) + seconds);
  }
  const postgres_us: Record<string, number> = {};
  for (const [name, seconds] of byClient) postgres_us[name] = perRequest(seconds);
  postgres_us.other = perRequest(Math.max(0, total.postgres_s - named));
  const wallSeconds = (after.at - before.at) / 1000;
  return {
    processes_us,
    postgres_us,
    redis_us: perRequest(total.redis_s),
    machine_busy_us: perRequest(total.machine_busy_s),
    machine_capacity_us: perRequest(wallSeconds * availableParallelism()),
  };
}
