import { defineConfig } from 'vitest/config';

/**
 * Two projects: pure unit tests run in parallel; integration tests (real Redis, BullMQ, HTTP
 * servers on free ports) run one file at a time, each under its own Redis key prefix.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/src/**/*.test.ts', 'scripts/**/*.test.mjs'],
          exclude: ['**/*.integration.test.ts', '**/node_modules/**', '**/dist/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{apps,packages}/*/src/**/*.integration.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
