// The packages bundled into dist/, read from the source map of every chunk: ncc writes one
// licence list per build, and the list of a lazily loaded chunk replaced the main bundle's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `{ name, dir }` for every package any file in `distDir` holds, by its folder under node_modules. */
export function bundledPackages(distDir) {
  const packages = new Map();
  for (const file of readdirSync(distDir).filter((f) => f.endsWith('.js.map'))) {
    const map = JSON.parse(readFileSync(join(distDir, file), 'utf8'));
    for (const source of map.sources) {
      const match = /^(.*node_modules\/(@[^/]+\/[^/]+|[^@/][^/]*))\//.exec(source);
      if (match) packages.set(match[1], { name: match[2], dir: join(distDir, match[1]) });
    }
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name) || a.dir.localeCompare(b.dir));
}
