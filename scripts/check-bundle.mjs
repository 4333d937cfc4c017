// Guards the bundle's budget after every build: at most 2 MB, and one copy of undici. The toolkit
// (@actions/http-client) brings undici 6; our own `undici` dependency is pinned to the same major
// so npm dedupes them. A second copy doubled start-up parsing in a trial (3.9 MB, 2.3x a bare fetch).
import { readFileSync, statSync } from 'node:fs';

const MAX_BYTES = 2 * 1024 * 1024;
const size = statSync(new URL('../dist/index.js', import.meta.url)).size;
const map = JSON.parse(readFileSync(new URL('../dist/index.js.map', import.meta.url), 'utf8'));
const copies = new Set(
  map.sources.map((source) => /^(.*node_modules\/undici)\//.exec(source)?.[1]).filter(Boolean),
);

const problems = [];
if (size > MAX_BYTES) problems.push(`dist/index.js is ${size} bytes, over the ${MAX_BYTES}-byte budget`);
if (copies.size !== 1)
  problems.push(`dist/index.js holds ${copies.size} copies of undici: ${[...copies].join(', ')}`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`dist/index.js: ${(size / 1024).toFixed(0)} kB, one undici`);
