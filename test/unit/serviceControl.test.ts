import { describe, expect, it } from 'vitest';
import { CANNOT_CONTROL_SERVICES, isCi, serviceControlGate } from '../faults/serviceControl.js';

// The fault scenarios that stop Postgres or Redis: run where the suite can control them,
// skipped on a developer's machine that cannot, and failed (never skipped) under CI.
describe('serviceControlGate', () => {
  it('runs the scenario wherever the services can be controlled', () => {
    expect(serviceControlGate(true, false)).toEqual({ kind: 'run' });
    expect(serviceControlGate(true, true)).toEqual({ kind: 'run' });
  });

  it('skips it on a machine that cannot, outside CI', () => {
    expect(serviceControlGate(false, false)).toEqual({ kind: 'skip' });
  });

  it('fails it under CI when the services cannot be controlled, saying why', () => {
    expect(serviceControlGate(false, true)).toEqual({
      kind: 'fail',
      message: CANNOT_CONTROL_SERVICES,
    });
    expect(CANNOT_CONTROL_SERVICES).toMatch(/pg_ctlcluster, redis-server and redis-cli/);
  });
});

describe('isCi', () => {
  it.each([
    [{ CI: 'true' }, true],
    [{ CI: '1' }, true],
    [{ CI: 'TRUE' }, true],
    [{ CI: 'woodpecker' }, true],
    [{}, false],
    [{ CI: '' }, false],
    [{ CI: 'false' }, false],
    [{ CI: 'False' }, false],
    [{ CI: '0' }, false],
  ])('%j → %s', (env, expected) => {
    expect(isCi(env)).toBe(expected);
  });
});
