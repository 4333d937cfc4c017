// Writes dist/licenses.txt: every package bundled into any file of dist/, with its licence,
// in ncc's format (name, licence id, licence text, a blank line).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledPackages } from './bundled-packages.mjs';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entries = [];
const seen = new Set();
for (const { name, dir } of bundledPackages(dist)) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const key = `${name}@${pkg.version}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  if (!file)
    throw new Error(`${name} (${dir}) ships no licence file: check its terms by hand before bundling it`);
  const text = readFileSync(join(dir, file), 'utf8').trim();
  entries.push(`${name}\n${pkg.license ?? 'UNKNOWN'}\n${text}\n`);
}
writeFileSync(join(dist, 'licenses.txt'), `${entries.join('\n')}`);
console.log(`dist/licenses.txt: ${entries.length} packages`);
