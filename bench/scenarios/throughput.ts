import type { ThroughputLoad, ThroughputResult } from '../load/throughput.js';
import { cpuBetween, snapshotCpu } from '../lib/cpu.js';
import type { Plan } from '../lib/plan.js';
import { FIRST_SALE_ID } from '../lib/postbacks.js';
import { peakRssMb, runToEnd } from '../lib/processes.js';
import { spawnBenchScript, type Server } from '../lib/servers.js';
import type { RunningVariant } from './servers.js';
import { waitForServices } from '../lib/services.js';
import { median, round } from '../lib/stats.js';

/** CPU per answered request, in microseconds, by who spent it. */
interface CpuPerRequest {
  readonly server_us: number;
  /** Of server_us, the main thread's (where requests are handled); the rest is GC and JIT. */
  readonly server_main_thread_us: number;
  readonly postgres_us: number;
  readonly redis_us: number;
  readonly load_generator_us: number;
  /** Busy time of the machine not accounted for by the above (other work, the kernel). */
  readonly other_us: number;
}

interface ThroughputRun extends ThroughputResult {
  readonly cpu_per_request: CpuPerRequest;
}

export interface ThroughputSummary {
  /** Median over the runs of 2xx answers per second. */
  readonly rps: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** Medians over the runs. */
  readonly cpu_per_request: CpuPerRequest;
  /** Answers that were not 2xx, or connection errors, over every run: should be 0. */
  readonly failures: number;
  readonly peak_rss_mb: number | null;
  readonly start_rss_mb: number | null;
  readonly runs: readonly ThroughputRun[];
}

/**
 * Every variant is started at once (idle servers cost nothing), warmed up, then measured in
 * rounds: round i runs each variant once, in turn, so that a change in the machine's load
 * (it is shared) falls on all of them alike. rps, p50, p99 and CPU are medians over rounds.
 */
export async function measureInterleaved(
  variants: readonly RunningVariant[],
  plan: Plan,
): Promise<Record<string, ThroughputSummary>> {
  const nextId = new Map(variants.map((v) => [v.name, FIRST_SALE_ID]));
  const run = async (variant: RunningVariant, durationSec: number): Promise<ThroughputRun> => {
    const load = variant.connections ? { ...plan, connections: variant.connections } : plan;
    return runOnce(variant.name, variant.server, load, durationSec, nextId);
  };
  for (const variant of variants) await run(variant, plan.warmupSec);
  const runs = new Map<string, ThroughputRun[]>(variants.map((v) => [v.name, []]));
  for (let round = 1; round <= plan.runs; round++) {
    for (const variant of variants) {
      const result = await run(variant, plan.runSec);
      runs.get(variant.name)?.push(result);
      const failures = result.non2xx + result.errors;
      process.stderr.write(
        `  round ${round}/${plan.runs} ${variant.name}: ${result.rps} req/s, p50 ${result.p50_ms} ms, ` +
          `p99 ${result.p99_ms} ms, CPU µs/req ${JSON.stringify(result.cpu_per_request)}` +
          (failures > 0 ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : '') +
          '\n',
      );
    }
  }
  const summaries: Record<string, ThroughputSummary> = {};
  for (const variant of variants) {
    summaries[variant.name] = await summarize(runs.get(variant.name) ?? [], variant.server);
  }
  return summaries;
}

/** A single variant, measured alone (`plan.runs` runs after a warm-up). */
export async function measureThroughput(
  name: string,
  server: Server,
  plan: Plan,
): Promise<ThroughputSummary> {
  const nextId = new Map([[name, FIRST_SALE_ID]]);
  await runOnce(name, server, plan, plan.warmupSec, nextId);
  const runs: ThroughputRun[] = [];
  for (let i = 0; i < plan.runs; i++) {
    runs.push(await runOnce(name, server, plan, plan.runSec, nextId));
  }
  return summarize(runs, server);
}

/**
 * One load run. The machine's Postgres and Redis are shared (other work may restart them):
 * a run that lost connections is thrown away and run again once they answer, twice at most.
 */
async function runOnce(
  name: string,
  server: Server,
  plan: Plan,
  durationSec: number,
  nextId: Map<string, number>,
): Promise<ThroughputRun> {
  for (let attempt = 1; ; attempt++) {
    const result = await runMeasured(name, server, plan, durationSec, nextId);
    if ((result.errors === 0 && result.ok > 0) || attempt === 3) return result;
    process.stderr.write(`  ${name}: ${result.errors} connection errors; running again\n`);
    await waitForServices(60_000);
  }
}

async function runMeasured(
  name: string,
  server: Server,
  plan: Plan,
  durationSec: number,
  nextId: Map<string, number>,
): Promise<ThroughputRun> {
  const before = await snapshotCpu([server.child.pid], server.databaseName);
  const result = await runLoad(name, {
    url: server.url,
    connections: plan.connections,
    durationSec,
    idBase: nextId.get(name) ?? FIRST_SALE_ID,
    generator: plan.generator,
  });
  const cpu = cpuBetween(before, await snapshotCpu([server.child.pid], server.databaseName));
  nextId.set(name, result.lastId + 1);
  const per = (seconds: number) => round((seconds / Math.max(result.ok, 1)) * 1e6, 1);
  const accounted = cpu.server_s + cpu.postgres_s + cpu.redis_s + result.load_process_cpu_s;
  return {
    ...result,
    cpu_per_request: {
      server_us: per(cpu.server_s),
      server_main_thread_us: per(cpu.server_main_thread_s),
      postgres_us: per(cpu.postgres_s),
      redis_us: per(cpu.redis_s),
      load_generator_us: per(result.load_cpu_s),
      other_us: per(Math.max(0, cpu.machine_busy_s - accounted)),
    },
  };
}

async function summarize(
  runs: readonly ThroughputRun[],
  server: Server,
): Promise<ThroughputSummary> {
  const medianOf = (key: keyof CpuPerRequest) => median(runs.map((r) => r.cpu_per_request[key]));
  return {
    rps: median(runs.map((r) => r.rps)),
    p50_ms: median(runs.map((r) => r.p50_ms)),
    p99_ms: median(runs.map((r) => r.p99_ms)),
    cpu_per_request: {
      server_us: medianOf('server_us'),
      server_main_thread_us: medianOf('server_main_thread_us'),
      postgres_us: medianOf('postgres_us'),
      redis_us: medianOf('redis_us'),
      load_generator_us: medianOf('load_generator_us'),
      other_us: medianOf('other_us'),
    },
    failures: runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    peak_rss_mb: await peakRssMb(server.child.pid),
    start_rss_mb: server.startRssMb,
    runs,
  };
}

/** The load generator in its own process (bench/load/throughput.ts), bounded by time. */
export async function runLoad(name: string, load: ThroughputLoad): Promise<ThroughputResult> {
  const child = spawnBenchScript(`${name}-load`, 'load/throughput.ts', [JSON.stringify(load)], {});
  const stdout = await runToEnd(child, (load.durationSec + 30) * 1000);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ThroughputResult;
}
