import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/paymirror', import.meta.url));

export interface CliRun {
  readonly child: ChildProcess;
  /** Everything written so far to stdout and stderr. */
  output(): string;
  /** Everything written so far to stdout alone. */
  stdout(): string;
  /** Resolves when the process exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Runs bin/paymirror as a user would, with only the environment given (plus PATH/HOME). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string } = {},
): CliRun {
  const child = spawn(BIN, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let text = '';
  let stdout = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    append(chunk);
  });
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => text,
    stdout: () => stdout,
    exited,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} in output within ${timeoutMs} ms:\n${text}`));
        }, timeoutMs);
        const onExit = () => {
          check();
          cleanup();
          reject(new Error(`process exited before ${pattern} appeared:\n${text}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.on('exit', onExit);
        check();
      });
    },
  };
}
