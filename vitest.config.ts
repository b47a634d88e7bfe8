import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './tests/setup/sequencer.ts';

/**
 * Run alone, after the rest: the concurrency bursts measure the service, not the other test files' load;
 * the input sweep checks that no table changes while it runs; the costly-filter lane's probes measure
 * answer times.
 */
const ALONE = [
  'tests/api/concurrency.test.ts',
  'tests/api/input-sweep.test.ts',
  'tests/api/cql2-cost-concurrency.test.ts',
];

export default defineConfig({
  resolve: {
    alias: [{ find: /^#lib\/(.*)$/, replacement: fileURLToPath(new URL('./lib/$1', import.meta.url)) }],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The test files mostly wait on the service (its own processes) and the database: 4 workers on 2 cores
    // took each leg 10–15% quicker than 2, beside a busy loop (README.md, "Two commands").
    maxWorkers: 4,
    // The longest files first (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      // `npm run test:unit`: no database, no service (its own project without the global setup).
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          // Beside the suite's files, on the same 4 workers (a project of one file at a time would run in
          // a group of its own, after all the others). The package tests share one lock around
          // `serverless package`; one of them waiting holds a worker, not a CPU.
          // Endpoint stacks create their pool (postgres.js connects only on a first query, which no unit
          // test makes); a port nothing listens on, so a query by mistake fails at once.
          env: { DATABASE_URL: 'postgres://unit@127.0.0.1:9/none', DB_DRIVER: 'postgres' },
        },
      },
      {
        extends: true,
        test: {
          name: 'suite',
          // Test files share their worker processes (4, not one per file): each file's own process spent
          // about 1.5 s of CPU starting and importing, a fifth of a leg's CPU on 2 cores (README.md).
          isolate: false,
          globalSetup: ['tests/setup/global.ts'],
          setupFiles: ['tests/setup/env.ts'],
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE, 'tests/unit/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'concurrency',
          include: ALONE,
          fileParallelism: false,
          globalSetup: ['tests/setup/global.ts'],
          setupFiles: ['tests/setup/env.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
