import { loadavg } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { describeMachine } from './lib/machine.js';
import { planFrom, wants } from './lib/plan.js';
import { killAllChildren } from './lib/processes.js';
import { ROOT } from './lib/servers.js';
import { dropAllServices } from './lib/services.js';
import { buildResults, printTable } from './lib/report.js';
import { measureE2e } from './scenarios/e2e.js';
import { profileIngress, profileWorker } from './scenarios/profile.js';
import {
  bare,
  baselineIngress,
  naive,
  naiveAt,
  paymirrorIngress,
  startVariant,
  type Variant,
} from './scenarios/servers.js';
import { measureLanes } from './scenarios/lanes.js';
import { measureScale } from './scenarios/scale.js';
import { measureSweep } from './scenarios/sweep.js';
import { measureInterleaved } from './scenarios/throughput.js';
import { measureWorkerRounds } from './scenarios/workerRounds.js';

/**
 * `npm run bench [-- --quick] [--profile] [--pools] [--autocannon] [--only a,b] [--baseline dir]
 * [--workers N] [--ingresses N]`: every scenario in one run, against the local Postgres and
 * Redis; writes bench/results.json. `--workers`/`--ingresses` add the `scale` section: the
 * same work on 1…N processes of that role.
 */
const plan = planFrom(process.argv.slice(2));
const sections: Record<string, unknown> = {};
const failures: string[] = [];

async function step<T>(name: string, work: () => Promise<T>): Promise<T | null> {
  process.stderr.write(
    `\n== ${name} at ${Math.round(performance.now() / 1000)} s (load average ${loadavg()[0]?.toFixed(2)})\n`,
  );
  try {
    const result = await work();
    sections[name] = result;
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name} failed: ${message}\n`);
    failures.push(`${name}: ${message}`);
    sections[name] = { error: message };
    return null;
  }
}

async function cleanUp(): Promise<void> {
  killAllChildren();
  await dropAllServices();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

const THROUGHPUT: readonly Variant[] = [
  bare,
  naive,
  paymirrorIngress(),
  // The same at 200 connections: more requests wait on each statement and each round trip.
  naiveAt('naive_c200', 200),
  paymirrorIngress('ingress_c200', {}, 200),
];

/** Pool sizes (`--pools`, or by name with --only). */
const POOLS: readonly Variant[] = [
  paymirrorIngress('ingress_pool4', { DB_POOL_MAX: '4' }),
  paymirrorIngress('ingress_pool20', { DB_POOL_MAX: '20' }),
];

try {
  const machine = await describeMachine();
  const started = new Date();
  const variants = [
    ...THROUGHPUT.filter((variant) => wants(plan, variant.name)),
    // Started and measured with the others, round by round: a change's before and after.
    ...(plan.baseline ? [baselineIngress(plan.baseline)] : []),
    ...POOLS.filter((variant) => plan.pools || plan.only.has(variant.name)),
  ];
  if (variants.length > 0) {
    await step('throughput', async () => {
      // Started side by side: creating and migrating the databases is most of the wait.
      const started = await Promise.allSettled(variants.map((variant) => startVariant(variant)));
      const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      try {
        const failed = started.find((s) => s.status === 'rejected');
        if (failed) throw failed.reason;
        return await measureInterleaved(running, plan);
      } finally {
        await Promise.all(running.map((variant) => variant.stop()));
      }
    });
  }
  if (wants(plan, 'e2e')) await step('e2e', () => measureE2e(plan, 'split'));
  if (wants(plan, 'e2e_flood')) {
    const floodWebhooks = plan.mode === 'quick' ? 300 : 1500;
    await step('e2e_flood', () => measureE2e(plan, 'split', { floodWebhooks }));
  }
  const drains = { worker: wants(plan, 'worker'), workerBare: wants(plan, 'worker_bare') };
  if (drains.worker || drains.workerBare) {
    const rounds = await step('worker', () =>
      measureWorkerRounds(plan, drains, (line) => process.stderr.write(`  ${line}\n`)),
    );
    // One step, two sections: the worker's and the bare worker's median rounds.
    if (rounds) {
      delete sections.worker;
      if (rounds.worker) sections.worker = rounds.worker;
      if (rounds.workerBare) sections.worker_bare = rounds.workerBare;
    }
  }
  if (wants(plan, 'lanes')) await step('lanes', () => measureLanes(plan));
  if (wants(plan, 'sweep')) await step('sweep', () => measureSweep(plan));
  if (plan.scaleWorkers !== null || plan.scaleIngresses !== null) {
    const counts = { workers: plan.scaleWorkers, ingresses: plan.scaleIngresses };
    await step('scale', () => measureScale(plan, counts, machine.cpus));
  }
  if (plan.profile) {
    await step('profile_ingress', () => profileIngress(plan, 'profile_ingress'));
    const baseline = plan.baseline;
    if (baseline) {
      await step('profile_baseline', () => profileIngress(plan, 'profile_baseline', baseline));
    }
    await step('profile_worker', () => profileWorker(plan));
  }
  const results = buildResults({ plan, machine, started, sections, variants });
  await writeFile(`${ROOT}bench/results.json`, `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  process.stderr.write(`\nwrote bench/results.json at ${Math.round(performance.now() / 1000)} s\n`);
} finally {
  await cleanUp();
}
if (failures.length > 0) {
  process.stderr.write(`\n${failures.length} scenario(s) failed:\n  ${failures.join('\n  ')}\n`);
  process.exit(1);
}
