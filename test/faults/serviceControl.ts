import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { it, type TestFunction } from 'vitest';

/** Whether this machine lets the suite stop and start the services (local, with their tools). */
export function canControlServices(): boolean {
  try {
    execFileSync('which', ['pg_ctlcluster', 'redis-server', 'redis-cli'], { stdio: 'ignore' });
    return readdirSync('/etc/postgresql').length > 0;
  } catch {
    return false;
  }
}

/** The CI convention: CI set to anything but empty, `false` or `0`. */
export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

export type ServiceControlGate =
  | { readonly kind: 'run' }
  | { readonly kind: 'skip' }
  | { readonly kind: 'fail'; readonly message: string };

export const CANNOT_CONTROL_SERVICES =
  'this scenario stops and starts Postgres or Redis, and this machine cannot ' +
  '(it needs pg_ctlcluster, redis-server and redis-cli, and a cluster under /etc/postgresql). ' +
  'Under CI it fails instead of skipping: run the fault suite where it can control them.';

/**
 * A scenario that stops Postgres or Redis runs where the suite can control them. Elsewhere a
 * developer's machine skips it, and CI fails it, saying why: there a skip would leave a
 * scenario SECURITY.md cites as proof unrun while the run reports success.
 */
export function serviceControlGate(controllable: boolean, ci: boolean): ServiceControlGate {
  if (controllable) return { kind: 'run' };
  return ci ? { kind: 'fail', message: CANNOT_CONTROL_SERVICES } : { kind: 'skip' };
}

/** `it` for a scenario that stops and starts the services (see serviceControlGate). */
export function itControllingServices(name: string, fn: TestFunction, timeout?: number): void {
  const gate = serviceControlGate(canControlServices(), isCi(process.env));
  switch (gate.kind) {
    case 'run':
      it(name, fn, timeout);
      return;
    case 'skip':
      it.skip(name, fn, timeout);
      return;
    case 'fail':
      it(name, () => {
        throw new Error(gate.message);
      });
      return;
  }
}
