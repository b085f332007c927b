import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/globalSetup.ts'],
    include: ['test/**/*.test.ts'],
    // The fault suite restarts Postgres and Redis: `npm run test:faults`, on its own.
    exclude: ['test/faults/**', 'test/scale/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only add contention against the shared Postgres and Redis.
    maxWorkers: 2,
  },
});
