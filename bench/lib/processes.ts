import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Every child the bench starts, so that all of them are killed at the end, on failure too.
 * Children are started in their own process group and killed by group (the load generator and
 * bin/paymirror may start grandchildren).
 */
const children = new Set<ChildProcess>();

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (or the signal) once the process ended. */
  readonly exited: Promise<number | string>;
  /** Everything written on stdout (load generators print their result there). */
  stdout(): string;
  /** The last lines written on stderr, for error messages. */
  stderrTail(): string;
}

export interface SpawnOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** Echo stderr lines with this prefix (servers' warnings, progress of load generators). */
  readonly echoStderr?: boolean;
}

export function spawnChild(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Child {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`cannot start ${name} (${command})`);
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err = (err + chunk).slice(-8000);
    if (options.echoStderr) process.stderr.write(prefixLines(`[${name}] `, chunk));
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    name,
    process: child,
    pid: child.pid,
    exited,
    stdout: () => out,
    stderrTail: () => err,
  };
}

function prefixLines(prefix: string, chunk: string): string {
  return chunk
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => `${prefix}${line}\n`)
    .join('');
}

/** SIGTERM (a drain for paymirror), then SIGKILL after `graceMs`. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  if (!children.has(child.process)) return;
  signalGroup(child.process, 'SIGTERM');
  const ended = await Promise.race([
    child.exited.then(() => true),
    sleep(graceMs, false, { ref: false }),
  ]);
  if (!ended) {
    signalGroup(child.process, 'SIGKILL');
    await child.exited;
  }
}

/** Kills every child still running, at once; for exits and failures. */
export function killAllChildren(): void {
  for (const child of children) signalGroup(child, 'SIGKILL');
  children.clear();
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Resolves with the child's stdout when it exits 0; rejects with its stderr otherwise. */
export async function runToEnd(child: Child, timeoutMs: number): Promise<string> {
  const result = await Promise.race([
    child.exited,
    // Unreferenced: a pending timer must not keep the bench alive once everything ended.
    sleep(timeoutMs, 'timeout' as const, { ref: false }),
  ]);
  if (result === 'timeout') {
    signalGroup(child.process, 'SIGKILL');
    throw new Error(`${child.name} did not finish within ${timeoutMs} ms`);
  }
  if (result !== 0) {
    throw new Error(`${child.name} exited with ${result}:\n${child.stderrTail()}`);
  }
  return child.stdout();
}

/** Polls `url` until it answers 200, or fails when the child exits or the time is up. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedEarly = false;
  void child.exited.then(() => (exitedEarly = true));
  while (Date.now() < deadline) {
    if (exitedEarly)
      throw new Error(`${child.name} exited during start-up:\n${child.stderrTail()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(
    `${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.stderrTail()}`,
  );
}

/** Peak resident set size (VmHWM) of a running process, in MB; null once it has exited. */
export function peakRssMb(pid: number): Promise<number | null> {
  return statusMb(pid, 'VmHWM');
}

/** Resident set size now (VmRSS), in MB; null once it has exited. */
export function rssMb(pid: number): Promise<number | null> {
  return statusMb(pid, 'VmRSS');
}

async function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}
