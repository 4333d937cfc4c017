// ESM all the way: @actions/core 3 and @actions/github 9 ship only ESM, so jest runs with
// --experimental-vm-modules (see the `test` script) and ts-jest emits ESM. ts-jest only transpiles;
// `npm run typecheck` (tsc --noEmit) is the type check.
import { availableParallelism } from 'node:os';

/**
 * The test files that need the build or start processes: the bundle run as the runner runs it
 * (`e2e.*`), a source's case that needs a small tool (`*.process`), the demo, GitHub's local
 * runner, what ships in dist/, and the release script run on a project of its own. Every other
 * test file runs in process, from the sources, with no build: the `unit` and `runs` projects
 * (`npm run test:unit`, `npm run test:runs`; test-layout.test.ts holds files to them).
 */
export const PROCESS_TESTS = [
  '/e2e\\.[^/]*\\.test\\.ts$',
  '\\.process\\.test\\.ts$',
  '/demo\\.test\\.ts$',
  '/local-action\\.test\\.ts$',
  '/bundle\\.test\\.ts$',
  '/release-check\\.test\\.ts$',
];

/**
 * The files that play whole runs: `run()` in this process, against the emulators (`run.*`). They
 * are the `runs` project; `npm run test:unit` runs the rest of the in-process tests (each module's
 * own), the fast loop, and `npm run test:runs` these.
 */
export const RUN_TESTS = ['/run\\.[^/]*\\.test\\.ts$'];

const project = {
  // jest's transform cache, kept with the install rather than in the temporary directory: a test
  // run leaves nothing there.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  testEnvironment: '<rootDir>/__fixtures__/environment.js',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...project,
      displayName: 'unit',
      testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
      testPathIgnorePatterns: [...PROCESS_TESTS, ...RUN_TESTS],
    },
    { ...project, displayName: 'runs', roots: ['<rootDir>/__tests__'], testRegex: RUN_TESTS },
    { ...project, displayName: 'process', roots: ['<rootDir>/__tests__'], testRegex: PROCESS_TESTS },
  ],
  testSequencer: '<rootDir>/jest.sequencer.js',
  // Every folder a test makes lives in one folder of the run's, removed at its end.
  globalSetup: '<rootDir>/__fixtures__/temp-setup.js',
  globalTeardown: '<rootDir>/__fixtures__/temp-teardown.js',
  // The tests mostly wait (polls, timeouts, child processes), so more workers than cores pay; past
  // three workers a core they only fight over the CPU.
  maxWorkers: Math.min(6, Math.max(2, availableParallelism() * 3)),
  // A hang fails its test, never a slow machine: a loaded 2-core runner takes several times as long
  // as an idle one, so the limit is generous (the e2e fixture kills a child well before it).
  testTimeout: 180_000,
  // A worker that ran the runs of the bundle and, under --coverage, hands V8's counters back takes
  // longer than jest's 500 ms to exit on a loaded 2-core machine, and jest then force-exits it and
  // says it "failed to exit gracefully". A file that leaves anything running fails on its own
  // (__fixtures__/environment.js), so a slow exit is not a leak: it gets 5 s, and one that still
  // hangs after that is force-exited with the warning as before.
  workerGracefulExitTimeout: 5_000,
  // Coverage (`--coverage`, as CI runs it) of the product's source, by V8's own counters (ESM-safe).
  // The end-to-end tests run the bundle in child processes, so only in-process tests count here.
  coverageProvider: 'v8',
  // The entry only calls run(), and ports.ts, sweep-ports.ts, records.ts, waiting-record.ts, accepted.ts and
  // github/api.ts hold only types (no line runs);
  // every other file keeps 70 % of its lines covered in process, so no rule lives only where a
  // child process exercises it.
  collectCoverageFrom: [
    'src/**/*.ts',
    '!src/index.ts',
    '!src/core/ports.ts',
    '!src/core/sweep-ports.ts',
    '!src/core/records.ts',
    '!src/core/waiting-record.ts',
    '!src/accepted.ts',
    '!src/github/api.ts',
  ],
  coverageThreshold: { './src/**/*.ts': { lines: 70 } },
  coverageReporters: ['text-summary'],
};
