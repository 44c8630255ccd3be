import { defineConfig } from 'vitest/config';

/**
 * Integration files that run after the rest (docs/tests.md says why): they kill a worker and wait
 * for another to take its job over once the lock runs out, bound a shutdown or a time-out within
 * seconds, count a platform's rate limit in real time, take down private Redis servers, or load
 * the machine on purpose. Beside the parallel phase's busy files, their bounds would measure the
 * neighbour.
 *
 * `scenarioAlone`: those that load the machine on purpose (5,000 and 3,000 messages, 32 MiB
 * streams, API processes under a burst) or bound a shutdown or a time-out within a few seconds run
 * one at a time, with the machine to themselves.
 */
const scenarioAlone = [
  'apps/api/src/api-processes.integration.test.ts',
  'apps/api/src/faults-sigterm.integration.test.ts',
  'apps/api/src/network-edges.integration.test.ts',
  'apps/api/src/redis-shards.integration.test.ts',
  'apps/api/src/scale-out.integration.test.ts',
  'apps/api/src/shutdown-bounds.integration.test.ts',
  'apps/api/src/sse-back-pressure.integration.test.ts',
  'apps/worker/src/main.integration.test.ts',
  'packages/providers/src/upstream-timeouts.integration.test.ts',
  'packages/state/src/send-limiter.integration.test.ts',
];

/**
 * `scenarioWaiting`: those that mostly wait — on a lock running out, a private Redis coming back, a
 * fake platform's rate-limit window, a killed worker's replacement — a quarter of a core or less
 * each (docs/tests.md): three at a time, together under one of the two cores, none loads another's
 * bounds.
 */
const scenarioWaiting = [
  'apps/api/src/faults.integration.test.ts',
  'apps/api/src/redis-cluster.integration.test.ts',
  'apps/api/src/worker-recovery.integration.test.ts',
  'apps/api/src/tools-exactly-once.integration.test.ts',
  'apps/api/src/routes/hooks-crash-delivery.integration.test.ts',
  'apps/api/src/routes/hooks-faults.integration.test.ts',
  'apps/api/src/routes/hooks-live-discord.integration.test.ts',
  'apps/api/src/routes/hooks-live-generic.integration.test.ts',
  'apps/api/src/routes/hooks-live-slack.integration.test.ts',
  'apps/api/src/routes/hooks-live-telegram.integration.test.ts',
  'apps/worker/src/processor.integration.test.ts',
];

/** Fails a file that leaves process.env changed (the files of a worker share its process). */
const ENV_GUARD = './vitest.env-guard.ts';

/** Two workers: this is what a 2-core machine runs at once; each file's servers and Redis prefix are its own. */
const WORKERS = 2;

/** The scenario files that mostly wait, three at a time: together they take under one core (docs/tests.md). */
const WAITING_WORKERS = 3;

/**
 * Four projects, in three phases. `unit` (pure) and `integration` (real Redis, BullMQ, HTTP servers
 * on free ports, each test under its own Redis key prefix, no fixed ports, no FLUSH) run side by
 * side, two files at a time. `scenario-waiting` runs after them, three files at a time; then
 * `scenario-alone`, one file at a time, with the machine to itself. `--project 'scenario-*'` runs
 * both scenario phases.
 *
 * `unit` and `integration` files share their worker's module cache (`isolate: false`): loading the
 * workspace's modules again for each file cost about as much CPU as the tests themselves (measured
 * in docs/tests.md). It is safe because no file changes what another one would see: none sets an
 * environment variable or a global, mocks a module, or leaves fake timers on (each restores them).
 * The scenario files share one too: they kill and restart child processes and private Redis
 * servers, never anything in the test process.
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
          exclude: [...scenarioAlone, ...scenarioWaiting, '**/node_modules/**', '**/dist/**'],
          maxWorkers: WORKERS,
          isolate: false,
          setupFiles: [ENV_GUARD],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'scenario-waiting',
          include: scenarioWaiting,
          // Three at a time, each worker keeping its module cache; they kill child processes and
          // private Redis servers, never anything in this process.
          maxWorkers: WAITING_WORKERS,
          isolate: false,
          setupFiles: [ENV_GUARD],
          // After `unit` and `integration` (groups run in order; a group's files share its worker count).
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'scenario-alone',
          include: scenarioAlone,
          fileParallelism: false,
          // One file at a time, in one process that keeps its module cache: loading the workspace
          // again for each file cost a sixth of the phase (docs/tests.md).
          maxWorkers: 1,
          isolate: false,
          setupFiles: [ENV_GUARD],
          // Last, with the machine to itself.
          sequence: { groupOrder: 2 },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
