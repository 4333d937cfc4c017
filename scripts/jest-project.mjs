// `npm run test:unit` and `npm run test:runs`: jest on one project, with whatever the caller adds
// (`-- -t <name>`, `-- --json`, `-- <file>`) read by jest as jest reads it. The project goes last:
// jest's `--selectProjects` takes every word after it, and a `--` before the caller's would make
// jest read their flags as file patterns.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [project, ...args] = process.argv.slice(2);
const jest = fileURLToPath(new URL('../node_modules/jest/bin/jest.js', import.meta.url));
const run = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    jest,
    ...args,
    '--selectProjects',
    project ?? '',
  ],
  { stdio: 'inherit' },
);
process.exitCode = run.status ?? 1;
