import { describe, expect, it } from 'vitest';
import { postgresDriver } from '../../src/operations/doctor.js';
import {
  POSTGRES_GUARD_MARKERS,
  postgresDriverGuarded,
} from '../../src/runtime/postgresDriverGuard.js';

// An install that skipped patches/ (npm ci --ignore-scripts) runs postgres.js unguarded:
// start-up logs a warning and doctor fails, both naming the fix.
describe('the postgres driver guard check', () => {
  it('finds the patch in the installed postgres.js, ES module and CommonJS alike', () => {
    expect(postgresDriverGuarded()).toBe(true);
  });

  it('notices a copy without it, or files it cannot read', () => {
    const [closedSocket, begin] = POSTGRES_GUARD_MARKERS;
    const patched = `// ${closedSocket}.\n// ${begin}.\n`;
    expect(postgresDriverGuarded(() => [patched, patched])).toBe(true);
    expect(postgresDriverGuarded(() => [patched, 'function nextWrite(fn) {}'])).toBe(false);
    expect(postgresDriverGuarded(() => [patched, `// ${closedSocket}.\n`])).toBe(false);
    expect(
      postgresDriverGuarded(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(false);
  });

  it('doctor fails an unpatched driver, naming npm ci without --ignore-scripts', () => {
    expect(postgresDriver(true).status).toBe('ok');
    const unpatched = postgresDriver(false);
    expect(unpatched.status).toBe('fail');
    expect(unpatched.detail).toMatch(/npm ci, without --ignore-scripts/);
  });
});
