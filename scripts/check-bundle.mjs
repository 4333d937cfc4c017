// Guards the bundle's budget after every build, over every file in dist/ (the main bundle and
// the chunks loaded on demand): at most 2 MB of JavaScript in all, one copy of undici, and a
// licence entry for every bundled package. The toolkit (@actions/http-client) brings undici 6;
// our own `undici` dependency is pinned to the same major so npm dedupes them. A second copy
// doubled start-up parsing in a trial (3.9 MB, 2.3x a bare fetch).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledPackages } from './bundled-packages.mjs';

const MAX_BYTES = 2 * 1024 * 1024;
// Licences that let the bundle ship under MIT with each package's notice in dist/licenses.txt;
// anything else needs a person to read its terms before it is bundled.
const ALLOWED_LICENCES = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD']);
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const scripts = readdirSync(dist).filter((f) => f.endsWith('.js'));
const sizes = scripts.map((file) => [file, statSync(join(dist, file)).size]);
const total = sizes.reduce((sum, [, size]) => sum + size, 0);
const packages = bundledPackages(dist);
const undicis = packages.filter((p) => p.name === 'undici');
const entries = readFileSync(join(dist, 'licenses.txt'), 'utf8')
  .split(/\n(?=\S+\n\S+\n)/)
  .map((entry) => entry.split('\n'));
const licensed = new Set(entries.map(([name]) => name));

const problems = [];
if (total > MAX_BYTES)
  problems.push(`dist/ holds ${total} bytes of JavaScript, over the ${MAX_BYTES}-byte budget`);
if (undicis.length !== 1)
  problems.push(`dist/ holds ${undicis.length} copies of undici: ${undicis.map((p) => p.dir).join(', ')}`);
for (const { name } of packages) {
  if (!licensed.has(name)) problems.push(`dist/licenses.txt does not list ${name}`);
}
for (const [name, licence] of entries) {
  if (!ALLOWED_LICENCES.has(licence))
    problems.push(`${name} is under ${licence}, which is not on the allow-list`);
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const kB = (bytes) => `${(bytes / 1024).toFixed(0)} kB`;
console.log(
  `dist/: ${sizes.map(([file, size]) => `${file} ${kB(size)}`).join(', ')}; ${kB(total)} in all, one undici, ${packages.length} packages licensed`,
);
