import { describe, expect, it } from 'vitest';

// The domain's tables (the machines' edges and reachability, the schedule's steps) are built
// when its modules load. A mistake there throws at import: here each module is imported inside
// a test, so such a mistake fails a test by name. (A test file whose import throws reports no
// test at all, and mutation testing counts that as a surviving mutant.)
const MODULES = {
  money: () => import('../../src/domain/money.js'),
  observationOrder: () => import('../../src/domain/observationOrder.js'),
  reachability: () => import('../../src/domain/reachability.js'),
  reconcileSchedule: () => import('../../src/domain/reconcileSchedule.js'),
  saleMachine: () => import('../../src/domain/saleMachine.js'),
  withdrawalMachine: () => import('../../src/domain/withdrawalMachine.js'),
};

describe('the domain modules', () => {
  it.each(Object.entries(MODULES))('%s loads', async (_name, load) => {
    await expect(load()).resolves.toBeTypeOf('object');
  });
});
