import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild, type Child } from './processes.js';
import { round } from './stats.js';

/**
 * CPU seconds spent during a run by the server under test, Postgres, Redis and the whole
 * machine, from /proc (Linux). The machine may be shared with other work (other databases on
 * the same Postgres, test suites): Postgres counts only the backends of the scenario's own
 * database plus the server's background processes (WAL writer, checkpointer, …), and
 * `other_s` shows how much else the machine did meanwhile.
 */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  readonly machineBusy: number;
  readonly server: ReadonlyMap<number, number>;
  /** The servers' main threads alone (JavaScript runs there; GC and JIT also on helper threads). */
  readonly serverMain: ReadonlyMap<number, number>;
  readonly postgres: ReadonlyMap<number, number>;
  readonly redis: ReadonlyMap<number, number>;
}

export interface CpuUse {
  readonly server_s: number;
  /** Of server_s, the main threads': the rest is V8's helper threads (GC, JIT) and libuv's. */
  readonly server_main_thread_s: number;
  readonly postgres_s: number;
  readonly redis_s: number;
  readonly machine_busy_s: number;
}

export async function snapshotCpu(
  serverPids: readonly number[],
  databaseName: string | null = null,
): Promise<CpuSnapshot> {
  const [machineBusy, processes] = await Promise.all([machineBusyTicks(), listProcesses()]);
  const postgres = new Map<number, number>();
  const redis = new Map<number, number>();
  for (const p of processes) {
    if (p.comm === 'redis-server') redis.set(p.pid, p.ticks);
    if (p.comm !== 'postgres') continue;
    // Client backends show "user database host(port) state"; background processes do not.
    const isBackend = p.cmdline.includes('(');
    if (!isBackend || databaseName === null || p.cmdline.includes(` ${databaseName} `)) {
      postgres.set(p.pid, p.ticks);
    }
  }
  const server = new Map<number, number>();
  const serverMain = new Map<number, number>();
  for (const pid of serverPids) {
    server.set(pid, await processTicks(pid));
    serverMain.set(pid, await processTicks(pid, pid));
  }
  return { machineBusy, server, serverMain, postgres, redis };
}

export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuUse {
  return {
    server_s: grown(before.server, after.server),
    server_main_thread_s: grown(before.serverMain, after.serverMain),
    postgres_s: grown(before.postgres, after.postgres),
    redis_s: grown(before.redis, after.redis),
    machine_busy_s: Math.max(0, after.machineBusy - before.machineBusy) / TICKS_PER_SECOND,
  };
}

/** CPU seconds one process gained between two snapshots (all it has, if started meanwhile). */
export function secondsGrown(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  pid: number,
): number {
  return Math.max(0, (after.get(pid) ?? 0) - (before.get(pid) ?? 0)) / TICKS_PER_SECOND;
}

/** Seconds gained by each process alive at the end (all of them for one started meanwhile). */
function grown(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let seconds = 0;
  for (const pid of after.keys()) seconds += secondsGrown(before, after, pid);
  return seconds;
}

async function machineBusyTicks(): Promise<number> {
  const stat = await readFile('/proc/stat', 'utf8');
  const fields = (stat.split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy is the first three and irq, softirq.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
  return user + nice + system + irq + softirq;
}

/**
 * The CPU a process costs to start (modules loaded and compiled, connections opened), measured
 * on a second process with nothing to do. A drain's CPU per job counts its process's start; on
 * a drain of 10,000 jobs a start of a second is 100 µs a job that no job costs.
 */
export async function startCpuSeconds(start: () => Promise<Child>): Promise<number> {
  const child = await start();
  try {
    return await settledCpuSeconds(child.pid);
  } finally {
    await stopChild(child);
  }
}

/** A drain's start, and what each job cost its process once started (node CPU). */
export interface StartFigures {
  /** CPU milliseconds the same process costs to start with nothing to do (startCpuSeconds). */
  readonly start_cpu_ms: number;
  /** The process's CPU per job without its start. */
  readonly worker_us_per_job_after_start: number;
}

export function startFigures(startSec: number, processSec: number, jobs: number): StartFigures {
  return {
    start_cpu_ms: Math.round(startSec * 1000),
    worker_us_per_job_after_start: round((Math.max(0, processSec - startSec) / jobs) * 1e6, 1),
  };
}

/**
 * CPU seconds a process has used once it has settled: no more than a tick gained in
 * `quietMs`. For a process started with nothing to do, this is what its start costs.
 */
async function settledCpuSeconds(
  pid: number,
  options: { readonly quietMs?: number; readonly timeoutMs?: number } = {},
): Promise<number> {
  const quietMs = options.quietMs ?? 1_000;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = await processTicks(pid);
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not settle`);
    await sleep(100);
    const now = await processTicks(pid);
    if (now - last > 1) quietSince = Date.now();
    last = Math.max(last, now);
  }
  return last / TICKS_PER_SECOND;
}

/**
 * utime + stime of one process, or of one of its threads (the main thread's id is the
 * process's); 0 once it is gone.
 */
async function processTicks(pid: number, thread: number | null = null): Promise<number> {
  try {
    const path = thread === null ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    return ticksOf(await readFile(path, 'utf8'));
  } catch {
    return 0;
  }
}

function ticksOf(stat: string): number {
  // The command name is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
}

interface ProcessInfo {
  readonly pid: number;
  readonly comm: string;
  readonly cmdline: string;
  readonly ticks: number;
}

async function listProcesses(): Promise<ProcessInfo[]> {
  const entries = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
  const found = await Promise.all(
    entries.map(async (entry): Promise<ProcessInfo | null> => {
      try {
        const comm = (await readFile(`/proc/${entry}/comm`, 'utf8')).trim();
        if (comm !== 'postgres' && comm !== 'redis-server') return null;
        const [stat, cmdline] = await Promise.all([
          readFile(`/proc/${entry}/stat`, 'utf8'),
          readFile(`/proc/${entry}/cmdline`, 'utf8'),
        ]);
        return {
          pid: Number(entry),
          comm,
          cmdline: cmdline.replace(/\0/g, ' '),
          ticks: ticksOf(stat),
        };
      } catch {
        return null; // the process ended meanwhile
      }
    }),
  );
  return found.filter((info): info is ProcessInfo => info !== null);
}
