import { z } from 'zod';

/** How long each part of one bench run takes; `--quick` keeps the whole run under 3 minutes. */
export interface Plan {
  readonly mode: 'full' | 'quick';
  readonly connections: number;
  /** Throughput runs per scenario; the median is reported. */
  readonly runs: number;
  readonly runSec: number;
  /** A first run thrown away: JIT, pool connections, caches. */
  readonly warmupSec: number;
  readonly e2eRate: number;
  readonly e2eSec: number;
  readonly e2eWarmupSec: number;
  /** Requests at the same rate just before the measured ones, not measured (paced.ts). */
  readonly e2eLeadInSec: number;
  /** Notifications pre-filled for the worker scenario. */
  readonly workerJobs: number;
  /** Write CPU profiles of the ingress (`--profile`). */
  readonly profile: boolean;
  /** Also measure DB_POOL_MAX 4 and 20, with and without batching (`--pools`). */
  readonly pools: boolean;
  /** The throughput load generator: bench/load/leanClient.ts, or autocannon (`--autocannon`). */
  readonly generator: 'lean' | 'autocannon';
  /**
   * A built checkout of another commit (`--baseline <dir>`, e.g. a `git worktree` of the commit
   * before a change, after `npm ci && npm run build` there): its `bin/paymirror` runs as the
   * `baseline` scenario beside `ingress`, so that one run measures a change's before and after.
   */
  readonly baseline: string | null;
  /** Only these scenarios (`--only bare,ingress`); all when empty. */
  readonly only: ReadonlySet<string>;
  /** `--workers N`: the worker drain with 1…N worker processes (the `scale` section). */
  readonly scaleWorkers: number | null;
  /** `--ingresses N`: the ingress load spread over 1…N ingress processes. */
  readonly scaleIngresses: number | null;
}

class PlanError extends Error {
  override readonly name = 'PlanError';
}

const processCount = z.coerce
  .number()
  .int('a whole number')
  .min(1, 'at least 1')
  .max(16, 'at most 16');

function countAfter(argv: readonly string[], flag: string): number | null {
  const at = argv.indexOf(flag);
  if (at < 0) return null;
  const parsed = processCount.safeParse(argv[at + 1]);
  if (!parsed.success) {
    throw new PlanError(`${flag}: ${parsed.error.issues[0]?.message ?? 'expected a count'}`);
  }
  return parsed.data;
}

export function planFrom(argv: readonly string[]): Plan {
  const quick = argv.includes('--quick');
  const onlyAt = argv.indexOf('--only');
  const baselineAt = argv.indexOf('--baseline');
  const only = new Set(
    onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',').filter((name) => name.length > 0) : [],
  );
  return {
    mode: quick ? 'quick' : 'full',
    connections: 50,
    runs: 3,
    runSec: quick ? 2 : 10,
    warmupSec: quick ? 1 : 2,
    e2eRate: 500,
    e2eSec: quick ? 4 : 20,
    e2eWarmupSec: quick ? 1 : 2,
    e2eLeadInSec: quick ? 1 : 2,
    workerJobs: quick ? 1000 : 10000,
    profile: argv.includes('--profile'),
    generator: argv.includes('--autocannon') ? 'autocannon' : 'lean',
    pools: argv.includes('--pools'),
    baseline: baselineAt >= 0 ? (argv[baselineAt + 1] ?? null) : null,
    only,
    scaleWorkers: countAfter(argv, '--workers'),
    scaleIngresses: countAfter(argv, '--ingresses'),
  };
}

export function wants(plan: Plan, scenario: string): boolean {
  return plan.only.size === 0 || plan.only.has(scenario);
}
