import { defineConfig } from 'vitest/config';

/**
 * Integration files that run after the rest, never beside `unit` or `integration` files
 * (docs/tests.md says why): they kill a worker and wait for another to take its job over once the
 * lock runs out, bound a shutdown or a time-out within seconds, count a platform's rate limit in
 * real time, take down private Redis servers, or load the machine on purpose. Beside the busy
 * parallel phase, their bounds would measure the neighbours. They run two at a time (each mostly
 * waits: a third of a core on average), but those in `alone`, below.
 */
const scenario = [
  'apps/api/src/api-processes.integration.test.ts',
  'apps/api/src/faults.integration.test.ts',
  'apps/api/src/faults-sigterm.integration.test.ts',
  'apps/api/src/network-edges.integration.test.ts',
  'apps/api/src/redis-cluster.integration.test.ts',
  'apps/api/src/scale-out.integration.test.ts',
  'apps/api/src/shutdown-bounds.integration.test.ts',
  'apps/api/src/sse-back-pressure.integration.test.ts',
  'apps/api/src/worker-recovery.integration.test.ts',
  'apps/api/src/tools-exactly-once.integration.test.ts',
  'apps/api/src/routes/hooks-crash-delivery.integration.test.ts',
  'apps/api/src/routes/hooks-faults.integration.test.ts',
  'apps/api/src/routes/hooks-live-discord.integration.test.ts',
  'apps/api/src/routes/hooks-live-generic.integration.test.ts',
  'apps/api/src/routes/hooks-live-slack.integration.test.ts',
  'apps/api/src/routes/hooks-live-telegram.integration.test.ts',
  'apps/worker/src/main.integration.test.ts',
  'apps/worker/src/processor.integration.test.ts',
  'packages/providers/src/upstream-timeouts.integration.test.ts',
  'packages/state/src/send-limiter.integration.test.ts',
];

/**
 * The `scenario` files that run last, one at a time, with the machine to themselves: those that
 * load it on purpose (5,000 messages through five processes, a 32 MiB stream); those that count a
 * platform's rate limit in real time at a tenth of its scale, whose 100 ms margin a neighbour
 * starting processes was seen to eat (a 429 beside api-processes and faults-sigterm); and Slack's
 * native stream, whose appends were seen to overlap when a neighbour slowed them (the thread showed
 * a piece twice: a bug of slack-live.ts under load, not of the test).
 */
const alone = [
  'apps/api/src/scale-out.integration.test.ts',
  'apps/api/src/sse-back-pressure.integration.test.ts',
  'apps/api/src/routes/hooks-live-telegram.integration.test.ts',
  'packages/state/src/send-limiter.integration.test.ts',
  'apps/api/src/routes/hooks-live-slack.integration.test.ts',
];

/** Fails a file that leaves process.env changed (the files of a worker share its process). */
const ENV_GUARD = './vitest.env-guard.ts';

/** Two workers: this is what a 2-core machine runs at once; each file's servers and Redis prefix are its own. */
const WORKERS = 2;

/**
 * Four projects. `unit` (pure) and `integration` (real Redis, BullMQ, HTTP servers on free ports,
 * each test under its own Redis key prefix, no fixed ports, no FLUSH) run side by side, two files
 * at a time. `scenario` runs after them, two files at a time, then `alone`, one file at a time.
 *
 * `unit` and `integration` files share their worker's module cache (`isolate: false`): loading the
 * workspace's modules again for each file cost about as much CPU as the tests themselves (measured
 * in docs/tests.md). It is safe because no file changes what another one would see: none sets an
 * environment variable or a global, mocks a module, or leaves fake timers on (each restores them).
 * `scenario` and `alone` files share one too: they kill and restart child processes and private
 * Redis servers, never anything in the test process.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/src/**/*.test.ts', 'scripts/**/*.test.mjs', 'bench/**/*.test.mjs'],
          exclude: ['**/*.integration.test.ts', '**/node_modules/**', '**/dist/**'],
          maxWorkers: WORKERS,
          isolate: false,
          setupFiles: [ENV_GUARD],
          // The property and oracle files run thousands of cases: 5 s was too little beside other work.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{apps,packages}/*/src/**/*.integration.test.ts'],
          exclude: [...scenario, '**/node_modules/**', '**/dist/**'],
          maxWorkers: WORKERS,
          isolate: false,
          setupFiles: [ENV_GUARD],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'scenario',
          include: scenario,
          exclude: [...alone, '**/node_modules/**', '**/dist/**'],
          // Two at a time, after `unit` and `integration` (groups run in order, each group with
          // one worker count), each worker keeping its module cache: the files kill child
          // processes and private Redis servers, never anything in the test process.
          maxWorkers: WORKERS,
          isolate: false,
          setupFiles: [ENV_GUARD],
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'alone',
          include: alone,
          // Last, one at a time, with the machine to themselves.
          fileParallelism: false,
          maxWorkers: 1,
          isolate: false,
          setupFiles: [ENV_GUARD],
          sequence: { groupOrder: 2 },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
