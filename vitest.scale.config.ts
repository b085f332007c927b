import { defineConfig } from 'vitest/config';

// The fleet test starts its own Redis Cluster, Sentinel set and PgBouncer, and a dozen
// paymirror processes: one file at a time, never together with the main suite.
export default defineConfig({
  test: {
    globalSetup: ['./test/support/globalSetup.ts'],
    include: ['test/scale/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
