// Runs one of the project's tools (`tsc`, `eslint`, `prettier`) with its arguments. Each turns on
// Node's compile cache, which Node keeps in the temporary directory unless told: here it is kept
// with the install (node_modules/.cache, beside jest's), so the checks and a test run leave nothing
// in the temporary directory.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = {
  tsc: 'typescript/bin/tsc',
  eslint: 'eslint/bin/eslint.js',
  prettier: 'prettier/bin/prettier.cjs',
};
const [tool = '', ...args] = process.argv.slice(2);
const bin = Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined;
if (!bin) {
  process.stderr.write(`usage: node scripts/with-cache.mjs ${Object.keys(TOOLS).join('|')} [arguments]\n`);
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const result = spawnSync(process.execPath, [join(root, 'node_modules', bin), ...args], {
  stdio: 'inherit',
  env: { ...process.env, NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache') },
});
process.exit(result.status ?? 1);
