// ESM all the way: @actions/core 3 and @actions/github 9 ship only ESM, so jest runs with
// --experimental-vm-modules (see the `test` script) and ts-jest emits ESM. ts-jest only transpiles;
// `npm run typecheck` (tsc --noEmit) is the type check.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  // The end-to-end tests start real processes and servers; 2 workers fit a 2-core runner.
  maxWorkers: 2,
  testTimeout: 60_000,
};
