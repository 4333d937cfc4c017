import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Reliability tests start processes of their own; two files at a time suits a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
