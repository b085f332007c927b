import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run test:mutation` runs against each mutant: the unit tests of the modules in
 * stryker.config.mjs's `mutate` list, nothing that needs Postgres or Redis (no globalSetup).
 * A module added to that list brings its unit tests here.
 */
export const MUTATION_TESTS = [
  'test/unit/ledgerRules.test.ts',
  'test/unit/domainLoads.test.ts',
  'test/unit/money.test.ts',
  'test/unit/saleMachine.test.ts',
  'test/unit/withdrawalMachine.test.ts',
  'test/unit/machinesSideBySide.test.ts',
  'test/unit/observationOrder.test.ts',
  'test/unit/reconcileSchedule.test.ts',
  'test/unit/isoInstant.test.ts',
  'test/unit/boletoDueDate.test.ts',
  'test/unit/withdrawalFees.test.ts',
  'test/unit/postbackSignature.test.ts',
  'test/unit/webhookAuth.test.ts',
  'test/unit/adminToken.test.ts',
  'test/unit/compareFields.test.ts',
  'test/unit/fillMissing.test.ts',
  'test/unit/gatewayToDomain.test.ts',
  'test/unit/parseNotification.test.ts',
  'test/unit/parseNotificationFields.test.ts',
  'test/unit/planNotice.test.ts',
  'test/unit/planRead.test.ts',
  'test/unit/planResources.test.ts',
  'test/unit/planMoneyEdges.test.ts',
];

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    testTimeout: 30_000,
  },
});
