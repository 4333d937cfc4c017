// ESM all the way: @actions/core 3 and @actions/github 9 ship only ESM, so jest runs with
// --experimental-vm-modules (see the `test` script) and ts-jest emits ESM. ts-jest only transpiles;
// `npm run typecheck` (tsc --noEmit) is the type check.
import { availableParallelism } from 'node:os';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  testSequencer: '<rootDir>/jest.sequencer.js',
  // The end-to-end tests mostly wait (polls, timeouts), so more workers than cores pay; but each
  // run of the bundle is a child process, and past three workers a core they only fight over the
  // CPU (on 2 cores, 6 workers: about 67 s and 125 s of CPU; 8: the same time and 140 s of CPU).
  maxWorkers: Math.min(6, Math.max(2, availableParallelism() * 3)),
  testTimeout: 60_000,
  // Coverage (`--coverage`, as CI runs it) of the product's source, by V8's own counters (ESM-safe).
  // The end-to-end tests run the bundle in child processes, so only in-process tests count here.
  coverageProvider: 'v8',
  // The entry only calls run(), and ports.ts holds only types (no line runs); every other file
  // keeps 70 % of its lines covered in process, so no rule lives only where a child process
  // exercises it.
  collectCoverageFrom: ['src/**/*.ts', '!src/index.ts', '!src/ports.ts'],
  coverageThreshold: { './src/**/*.ts': { lines: 70 } },
  coverageReporters: ['text-summary'],
};
