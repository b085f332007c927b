import { defineConfig } from 'vitest/config';

// The fault suite stops and starts the machine's Postgres and Redis: one file at a time, and
// never together with the main suite.
export default defineConfig({
  test: {
    globalSetup: ['./test/support/globalSetup.ts'],
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
