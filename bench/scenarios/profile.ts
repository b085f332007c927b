import { mkdir, readdir, rm } from 'node:fs/promises';
import type { Plan } from '../lib/plan.js';
import { stopChild } from '../lib/processes.js';
import { summarizeProfile, type ProfileSummary } from '../lib/profileSummary.js';
import { resolve } from 'node:path';
import { ROOT, startPaymirrorProcess } from '../lib/servers.js';
import { createScenarioServices, type ScenarioServices } from '../lib/services.js';
import { measureThroughput } from './throughput.js';
import { measureWorker } from './worker.js';

export interface ProfiledRun {
  readonly rps: number;
  readonly profile: string;
  readonly summary: ProfileSummary;
}

/**
 * A CPU profile (`node --cpu-prof`) of an ingress under the same load, written to
 * bench/profiles/<name>/ when the process drains and exits: this checkout's bin/paymirror, or
 * the one in `baseline` (a built checkout of another commit).
 */
export async function profileIngress(
  plan: Plan,
  name: string,
  baseline: string | null = null,
): Promise<ProfiledRun> {
  const dir = `${ROOT}bench/profiles/${name}`;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const flags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const services: ScenarioServices = await createScenarioServices(name, { migrate: true });
  try {
    const root = baseline === null ? ROOT : `${resolve(baseline)}/`;
    const server = await startPaymirrorProcess(name, 'ingress', services, {}, flags, root);
    let rps = 0;
    try {
      rps = (await measureThroughput(name, server, { ...plan, runs: 1 })).rps;
    } finally {
      await stopChild(server.child, 20_000);
    }
    const [file] = (await readdir(dir)).filter((entry) => entry.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no .cpuprofile written in ${dir}`);
    return {
      rps,
      profile: `bench/profiles/${name}/${file}`,
      summary: await summarizeProfile(`${dir}/${file}`),
    };
  } finally {
    await services.drop();
  }
}

/** A CPU profile of the worker draining the pre-filled queue (see measureWorker). */
export async function profileWorker(plan: Plan): Promise<ProfiledRun> {
  const dir = `${ROOT}bench/profiles/profile_worker`;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const result = await measureWorker(plan, {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const [file] = (await readdir(dir)).filter((entry) => entry.endsWith('.cpuprofile'));
  if (!file) throw new Error(`profile_worker: no .cpuprofile written in ${dir}`);
  return {
    rps: result.applied_per_s,
    profile: `bench/profiles/profile_worker/${file}`,
    summary: await summarizeProfile(`${dir}/${file}`),
  };
}
