import { runCli, type CliRun } from './cli.js';

/** One `paymirror start --role <role>` process of a fleet test. */
export interface FleetProcess {
  readonly name: string;
  readonly role: string;
  /** Where it listens (every role serves /healthz and /readyz there; /metrics on METRICS_PORT). */
  readonly url: string;
  readonly run: CliRun;
  alive(): boolean;
  /** SIGKILL: no drain, no cleanup, as when a node dies. */
  kill9(): Promise<void>;
  /** SIGTERM, waiting for the drain. */
  stop(): Promise<void>;
}

export async function startFleetProcess(
  name: string,
  role: string,
  env: Record<string, string>,
): Promise<FleetProcess> {
  const run = runCli(['start', '--role', role, '--no-migrate'], env);
  const exited = run.exited.then(() => true);
  let dead = false;
  void exited.then(() => (dead = true));
  try {
    const match = await run.waitForOutput(
      /"url":"(http:\/\/[^"]+)"[^\n]*"paymirror started"/,
      60_000,
    );
    return {
      name,
      role,
      url: match[1] as string,
      run,
      alive: () => !dead,
      async kill9() {
        if (dead) return;
        run.child.kill('SIGKILL');
        await exited;
      },
      async stop() {
        if (dead) return;
        run.child.kill('SIGTERM');
        await exited;
      },
    };
  } catch (error) {
    run.child.kill('SIGKILL');
    throw new Error(`${name} did not start: ${(error as Error).message}`);
  }
}
