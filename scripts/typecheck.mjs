// `npm run typecheck`: `tsc --noEmit`. tsc turns on Node's compile cache, which Node keeps in the
// temporary directory unless told: here it is kept with the install, so a test run leaves nothing
// in the temporary directory (jest's own cache is in node_modules/.cache too).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '--noEmit', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache') },
});
process.exit(result.status ?? 1);
