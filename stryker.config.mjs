// @ts-check
/**
 * Mutation testing (`npm run test:mutation`): the modules where one wrong character costs money
 * or lets someone in. To widen the scope, add the module to `mutate` and the unit tests that
 * cover it to vitest.mutation.config.ts. An equivalent mutant is explained where it lives, with
 * `// Stryker disable next-line <mutator>: <reason>`.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  mutate: [
    // State machines, observation order, the check schedule, and the one money-units module.
    'src/domain/**/*.ts',
    // Who gets in: the postback signature, the webhook token, the admin token.
    'src/ingress/postbackSignature.ts',
    'src/ingress/webhookAuth.ts',
    'src/ingress/adminToken.ts',
    // What a gateway read or a notification writes over the mirror's fields.
    'src/mirror/compareFields.ts',
    'src/mirror/fillMissing.ts',
    // The gateway's answers and its notifications, in centavos (through src/domain/money.ts).
    'src/gateway/toDomain.ts',
    'src/notifications/parseNotification.ts',
    // The planners: what a notification or a gateway read does to a mirror record.
    'src/mirror/planContext.ts',
    'src/mirror/planNotice.ts',
    'src/mirror/planRead.ts',
    'src/mirror/saleResource.ts',
    'src/mirror/withdrawalResource.ts',
    // Whether a record was denied, and what an authentic observation of it clears.
    'src/mirror/counted.ts',
    // The books' rules: what a state implies on each account, and the entries that get there.
    'src/books/ledgerRules.ts',
  ],
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // The machine is shared (two cores).
  concurrency: 2,
  // Reuses reports/stryker-incremental.json: only mutants whose code or tests changed run again.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  thresholds: { high: 95, low: 85, break: 85 },
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
