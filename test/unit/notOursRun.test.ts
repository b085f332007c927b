import { describe, expect, it } from 'vitest';
import { createNotOursRun } from '../../src/worker/notOursRun.js';
import type { LaneResult } from '../../src/worker/workerOutcome.js';

const done = (outcome: 'forged' | 'applied' | 'noop', confirmed = true): LaneResult => ({
  kind: 'done',
  resource: 'sale',
  outcome,
  confirmed,
  needsReconcile: false,
  crossChannelDisagreement: false,
  receivedAt: new Date(0),
  recordId: 1,
  outsideFormat: null,
});

describe('the run of webhooks about unknown ids the gateway disowned', () => {
  it('counts forged ones in a row, resets on one the gateway confirms, ignores the rest', () => {
    const shown: number[] = [];
    const run = createNotOursRun({ set: (value) => shown.push(value) });
    for (const result of [
      done('forged'),
      done('forged'),
      { kind: 'skipped', state: 'processed' } as const,
      { kind: 'forwarded', to: 'unknownIds' } as const,
      done('applied', false),
      done('forged'),
      done('noop'),
      done('forged'),
    ]) {
      run.observe(result);
    }
    expect(shown).toEqual([0, 1, 2, 3, 0, 1]);
  });
});
