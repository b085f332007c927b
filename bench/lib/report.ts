import type { ScaleSummary } from '../scenarios/scale.js';
import type { SweepSummary } from '../scenarios/sweep.js';
import type { BareWorkerSummary } from '../scenarios/workerBare.js';
import type { E2eCpu } from './e2eCpu.js';
import { P99_WINDOW_SEC, type E2eSummary } from '../scenarios/e2e.js';
import type { LanesSummary } from '../scenarios/lanes.js';
import type { Variant } from '../scenarios/servers.js';
import type { ThroughputSummary } from '../scenarios/throughput.js';
import type { WorkerSummary } from '../scenarios/worker.js';
import type { StartFigures } from './cpu.js';
import type { Machine } from './machine.js';
import type { Plan } from './plan.js';
import { round } from './stats.js';

interface Target {
  readonly name: string;
  readonly target: string;
  readonly value: number | null;
  readonly met: boolean | null;
}

export type Results = Record<string, unknown> & {
  readonly date: string;
  readonly machine: Machine;
  readonly ratios: Record<string, number | null>;
  readonly rss_mb: Record<string, number | null>;
  readonly targets: readonly Target[];
};

interface Inputs {
  readonly plan: Plan;
  readonly machine: Machine;
  readonly started: Date;
  readonly sections: Record<string, unknown>;
  readonly variants: readonly Variant[];
}

/** bench/results.json: the headline figures and targets, then the detail of every run. */
export function buildResults({ plan, machine, started, sections, variants }: Inputs): Results {
  const throughput = throughputOf(sections);
  const e2e = valid<E2eSummary>(sections.e2e);
  const e2eFlood = valid<E2eSummary>(sections.e2e_flood);
  const worker = valid<WorkerSummary>(sections.worker);
  const workerBare = valid<BareWorkerSummary>(sections.worker_bare);
  const lanes = valid<LanesSummary>(sections.lanes);
  const rps = (name: string) => throughput[name]?.rps ?? null;
  const ratio = (a: string, b: string) => {
    const x = rps(a);
    const y = rps(b);
    return x !== null && y !== null && y > 0 ? round(x / y, 3) : null;
  };
  const rss: Record<string, number | null> = {};
  for (const [name, summary] of Object.entries(throughput)) rss[name] = summary.peak_rss_mb;
  Object.assign(rss, e2e?.rss_mb ?? {}, worker?.rss_mb ?? {});
  for (const [name, mb] of Object.entries(e2eFlood?.rss_mb ?? {})) rss[`${name}-flood`] = mb;
  delete rss.bare;
  delete rss.naive;
  delete rss.naive_c200;
  const ingress = throughput.ingress;
  const ratios = {
    ingress_vs_naive: ratio('ingress', 'naive'),
    ingress_vs_bare: ratio('ingress', 'bare'),
    ingress_vs_naive_c200: ratio('ingress_c200', 'naive_c200'),
    baseline_vs_naive: ratio('baseline', 'naive'),
    ingress_vs_baseline: ratio('ingress', 'baseline'),
    worker_vs_bare:
      worker && workerBare && workerBare.applied_per_s > 0
        ? round(worker.applied_per_s / workerBare.applied_per_s, 3)
        : null,
  };
  const maxRss = Math.max(0, ...Object.values(rss).map((v) => v ?? 0));
  const workerCpu = worker
    ? round(
        worker.cpu_per_job.worker_us + worker.cpu_per_job.postgres_us + worker.cpu_per_job.redis_us,
        1,
      )
    : null;
  const target = (
    name: string,
    text: string,
    value: number | null,
    ok: (v: number) => boolean,
  ) => ({
    name,
    target: text,
    value,
    met: value === null ? null : ok(value),
  });
  return {
    date: started.toISOString(),
    machine,
    mode: plan.mode,
    plan: { ...plan, only: [...plan.only] },
    bare: { rps: rps('bare') },
    naive: { rps: rps('naive') },
    ingress: {
      rps: rps('ingress'),
      p50_ms: ingress?.p50_ms ?? null,
      p99_ms: ingress?.p99_ms ?? null,
    },
    e2e: {
      offered_rps: plan.e2eRate,
      p50_ms: e2e?.p50_ms ?? null,
      p99_ms: e2e?.p99_ms ?? null,
    },
    e2e_flood: {
      webhooks_queued: e2eFlood?.webhooks_queued ?? null,
      p50_ms: e2eFlood?.p50_ms ?? null,
      p99_ms: e2eFlood?.p99_ms ?? null,
    },
    worker: {
      applied_per_s: worker?.applied_per_s ?? null,
      cpu_us_per_job: workerCpu,
      ...startOf(worker),
    },
    worker_bare: { applied_per_s: workerBare?.applied_per_s ?? null, ...startOf(workerBare) },
    lanes: {
      webhooks_queued: lanes?.webhooks_queued ?? null,
      postback_p99_ms: lanes?.postback_p99_ms ?? null,
      genuine_webhook_p99_ms: lanes?.genuine_webhook_p99_ms ?? null,
    },
    scale: valid<ScaleSummary>(sections.scale) ?? null,
    rss_mb: rss,
    ratios,
    // The targets (bench/PERFORMANCE.md), all to be met in one run.
    targets: [
      target('ingress_vs_naive', '≥ 1.5', ratios.ingress_vs_naive, (v) => v >= 1.5),
      target('ingress p99 ms at c=50', '≤ 30', ingress?.p99_ms ?? null, (v) => v <= 30),
      target('e2e p99 ms at 500/s', '≤ 50', e2e?.p99_ms ?? null, (v) => v <= 50),
      target(
        'e2e p99 ms at 500/s, 1,500 webhooks waiting',
        '≤ 50',
        e2eFlood?.p99_ms ?? null,
        (v) => v <= 50,
      ),
      target('worker vs bare worker', '≥ 0.75', ratios.worker_vs_bare, (v) => v >= 0.75),
      target('worker CPU µs/job (node + Postgres + Redis)', '≤ 500', workerCpu, (v) => v <= 500),
      target('peak RSS MB per process', '≤ 150', maxRss || null, (v) => v <= 150),
      target(
        'signed postback p99 ms with 1,500 webhooks queued',
        '≤ 5000',
        lanes?.postback_p99_ms ?? null,
        (v) => v <= 5000,
      ),
    ],
    variants: Object.fromEntries(
      variants.map((v) => [v.name, v.describe]).filter(([name]) => name && throughput[name]),
    ),
    detail: sections,
  };
}

export function printTable(results: Results): void {
  const detail = results.detail as Record<string, unknown>;
  const throughput = throughputOf(detail);
  const bare = throughput.bare?.rps ?? 0;
  const naive = throughput.naive?.rps ?? 0;
  const lines: string[] = [];
  const m = results.machine;
  lines.push(
    `paymirror bench (${String(results.mode)}), ${results.date}: ${m.cpus} × ${m.cpu_model}, ` +
      `node ${m.node}, ${m.postgres}, Redis ${m.redis}, load average at start ${m.loadavg_at_start}`,
  );
  lines.push('');
  lines.push(
    '| scenario | req/s | p50 ms | p99 ms | vs naive | vs bare | CPU µs/req: server + Postgres + Redis | RSS MB start → peak |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---|---:|');
  for (const [name, s] of Object.entries(throughput)) {
    const c = s.cpu_per_request;
    lines.push(
      `| ${name} | ${s.rps} | ${s.p50_ms} | ${s.p99_ms} | ${fmt(s.rps / naive)} | ${fmt(s.rps / bare)} | ` +
        `${c.server_us} + ${c.postgres_us} + ${c.redis_us} | ${s.start_rss_mb ?? '–'} → ${s.peak_rss_mb ?? '–'} |`,
    );
  }
  lines.push('');
  for (const name of ['e2e', 'e2e_flood']) {
    const e2e = valid<E2eSummary>(detail[name]);
    if (!e2e) continue;
    const flood =
      e2e.webhooks_queued > 0
        ? `, ${e2e.webhooks_queued} unconfirmed webhooks queued first ` +
          `(${e2e.webhooks_still_pending ?? '–'} still waiting at the end)`
        : '';
    lines.push(
      `${name} (${e2e.layout}) at ${e2e.offered_rps}/s for ${e2e.duration_s} s${flood}: ` +
        `request due → applied p50 ${e2e.p50_ms} ms, p99 ${e2e.p99_ms} ms (max ${e2e.max_ms}); ` +
        `received → applied p50 ${e2e.received_to_processed_p50_ms}, ` +
        `p99 ${e2e.received_to_processed_p99_ms}; HTTP p50 ${e2e.http_p50_ms}, ` +
        `p99 ${e2e.http_p99_ms}; ${e2e.applied}/${e2e.sent} applied` +
        (e2e.failed_requests > 0
          ? `; ${e2e.failed_requests} requests failed: ${JSON.stringify(e2e.failures ?? {})}`
          : ''),
    );
    if (e2e.p99_ms_by_window) {
      lines.push(`  p99 ms by ${P99_WINDOW_SEC} s of the run: ${e2e.p99_ms_by_window.join(', ')}`);
    }
    if (e2e.cpu) lines.push(`  ${e2eCpuLine(e2e.cpu)}`);
  }
  const lanes = valid<LanesSummary>(detail.lanes);
  if (lanes) {
    lines.push(
      `lanes: ${lanes.webhooks_queued} unconfirmed webhooks queued (gateway budget ` +
        `${lanes.gateway_max_rps}/s); ${lanes.postbacks} signed postbacks sent → applied ` +
        `p50 ${lanes.postback_p50_ms} ms, p99 ${lanes.postback_p99_ms} ms ` +
        `(max ${lanes.postback_max_ms}); ${lanes.genuine_webhooks} genuine webhooks about ` +
        `known sales sent → confirmed p50 ${lanes.genuine_webhook_p50_ms} ms, ` +
        `p99 ${lanes.genuine_webhook_p99_ms} ms (max ${lanes.genuine_webhook_max_ms}); ` +
        `${lanes.webhooks_still_pending} forged webhooks still waiting`,
    );
  }
  const sweep = valid<SweepSummary>(detail.sweep);
  if (sweep) {
    lines.push(
      `sweep: one pass over ${sweep.webhooks_waiting} webhooks waiting in the confirmation lane ` +
        `in ${sweep.pass_ms} ms (${sweep.requeued} enqueued again); CPU ms: sweeper ` +
        `${sweep.sweeper_cpu_ms}, Redis ${sweep.redis_cpu_ms}, Postgres ${sweep.postgres_cpu_ms}; ` +
        `WAL ${sweep.wal_mb} MB`,
    );
  }
  const worker = valid<WorkerSummary & RoundRates>(detail.worker);
  if (worker) {
    lines.push(
      `worker: ${worker.applied_per_s} applied/s draining ${worker.jobs} jobs${roundsOf(worker)} ` +
        `(${worker.wall_s} s from process start); CPU µs/job ${JSON.stringify(worker.cpu_per_job)}` +
        `${afterStart(worker)}; outcomes ${JSON.stringify(worker.outcomes)}` +
        (worker.gc ? `; GC pauses ${JSON.stringify(worker.gc)}` : ''),
    );
  }
  const bareWorker = valid<BareWorkerSummary & RoundRates>(detail.worker_bare);
  if (bareWorker) {
    lines.push(
      `worker_bare: ${bareWorker.applied_per_s} applied/s draining ${bareWorker.jobs} jobs${roundsOf(bareWorker)} ` +
        '(BullMQ + one INSERT … ON CONFLICT per job, the same concurrency); ' +
        `CPU µs/job ${JSON.stringify(bareWorker.cpu_per_job)}${afterStart(bareWorker)}`,
    );
  }
  const scale = valid<ScaleSummary>(detail.scale);
  for (const [role, points] of [
    ['worker processes (applied/s)', scale?.workers],
    ['ingress processes (accepted/s)', scale?.ingresses],
  ] as const) {
    if (!points) continue;
    lines.push(
      `scale, ${role} on ${scale?.cores} cores: ` +
        points.map((p) => `${p.processes} → ${p.per_s} (×${p.speedup})`).join(', '),
    );
  }
  lines.push(`peak RSS MB: ${JSON.stringify(results.rss_mb)}`);
  lines.push('');
  lines.push('| target | wanted | this run | met |');
  lines.push('|---|---|---:|---|');
  for (const t of results.targets) {
    lines.push(
      `| ${t.name} | ${t.target} | ${t.value ?? '–'} | ${t.met === null ? '–' : t.met ? 'yes' : 'NO'} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A section, unless it failed. */
function valid<T>(section: unknown): T | undefined {
  return section && typeof section === 'object' && !('error' in section)
    ? (section as T)
    : undefined;
}

/** The throughput section, or nothing when it failed as a whole. */
function throughputOf(sections: Record<string, unknown>): Record<string, ThroughputSummary> {
  const section = sections.throughput as Record<string, ThroughputSummary> | undefined;
  return section && !('error' in section) ? section : {};
}

function fmt(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}

/** A drain's start figures for results.json, null where the drain did not run. */
function startOf(drain: StartFigures | null | undefined): {
  [K in keyof StartFigures]: number | null;
} {
  return {
    start_cpu_ms: drain?.start_cpu_ms ?? null,
    worker_us_per_job_after_start: drain?.worker_us_per_job_after_start ?? null,
  };
}

/** "; its start 1234 ms of CPU, then 456 µs a job (node)" when the drain measured its start. */
function afterStart(drain: Partial<StartFigures>): string {
  if (drain.start_cpu_ms === undefined || drain.worker_us_per_job_after_start === undefined) {
    return '';
  }
  return (
    `; its start ${drain.start_cpu_ms} ms of CPU, then ` +
    `${drain.worker_us_per_job_after_start} µs a job (node)`
  );
}

/** A drain measured in rounds (bench/scenarios/workerRounds.ts). */
interface RoundRates {
  readonly rounds_applied_per_s?: readonly number[];
}

/** " (median of rounds a, b, c)" when the drain ran in rounds. */
function roundsOf(drain: RoundRates): string {
  const rounds = drain.rounds_applied_per_s;
  return rounds && rounds.length > 1 ? ` (median of rounds ${rounds.join(', ')})` : '';
}

/** `CPU µs a request: e2e-ingress 811, e2e-worker 949; Postgres: …; Redis 325; machine busy 3761 of 4058`. */
function e2eCpuLine(cpu: E2eCpu): string {
  const list = (figures: Record<string, number>) =>
    Object.entries(figures)
      .map(([name, us]) => `${name} ${us}`)
      .join(', ');
  return (
    `CPU µs a request: ${list(cpu.processes_us)}; Postgres: ${list(cpu.postgres_us)}; ` +
    `Redis ${cpu.redis_us}; machine busy ${cpu.machine_busy_us} of ${cpu.machine_capacity_us}`
  );
}
