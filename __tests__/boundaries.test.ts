// src/ is the product: it ships in dist/, so it imports neither the test support (emulators/,
// __fixtures__/) nor any devDependency. ESLint enforces it; this checks the rule covers them all.
import { expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

interface Restriction {
  patterns: { group: string[] }[];
}

it('keeps src/ from importing the emulators, the fixtures or any devDependency', async () => {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile(join(ROOT, 'src', 'main.ts'))) as {
    rules: Record<string, [unknown, Restriction]>;
  };
  const [level, options] = config.rules['no-restricted-imports'] ?? [];
  expect(level).toBe(2);
  const groups = options?.patterns.flatMap((p) => p.group) ?? [];
  expect(groups).toEqual(expect.arrayContaining(['**/emulators/**', '**/__fixtures__/**']));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  for (const name of Object.keys(pkg.devDependencies)) expect(groups).toContain(name);
});
