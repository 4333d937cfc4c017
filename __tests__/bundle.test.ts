// What ships in dist/: the GitHub side in chunks of its own, a licence for every bundled package
// of every file (ncc writes one list per build, and a chunk's list once replaced the main
// bundle's), and docs/development.md's benchmark table naming exactly the files the build made.
import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsScript } from '../__fixtures__/docs.js';
import { ROOT } from '../__fixtures__/runner.js';

const DIST = join(ROOT, 'dist');
const sourcesOf = (file: string): string[] =>
  (JSON.parse(readFileSync(join(DIST, `${file}.map`), 'utf8')) as { sources: string[] }).sources;
const packageOf = (source: string) => /node_modules\/(@[^/]+\/[^/]+|[^@/][^/]*)\//.exec(source)?.[1];

describe('dist/', () => {
  const scripts = readdirSync(DIST).filter((f) => f.endsWith('.js'));

  it('keeps Octokit out of the main bundle, in chunks loaded on demand', () => {
    const main = new Set(sourcesOf('index.js').map(packageOf));
    expect(main.has('@actions/core')).toBe(true);
    expect([...main].filter((p) => p?.startsWith('@octokit/') || p === '@actions/github')).toEqual([]);
    const chunks = scripts.filter((f) => f !== 'index.js');
    const chunked = new Set(chunks.flatMap(sourcesOf).map(packageOf));
    expect(chunked.has('@actions/github')).toBe(true);
    expect(chunked.has('@octokit/core')).toBe(true);
  });

  it('lists the licence of every package any file bundles', () => {
    const bundled = new Set(
      scripts
        .flatMap(sourcesOf)
        .map(packageOf)
        .filter((p) => p !== undefined),
    );
    const listed = readFileSync(join(DIST, 'licenses.txt'), 'utf8');
    for (const name of ['@actions/core', 'undici', 'zod', '@actions/github', '@octokit/core']) {
      expect(bundled.has(name)).toBe(true);
    }
    for (const name of bundled)
      expect(listed).toMatch(new RegExp(`(^|\\n\\n)${name.replace('/', '\\/')}\\n[^\\n]+\\n`));
  });

  it("is what docs/development.md's benchmark table lists: each file of the build, and no other", async () => {
    const { check, sizeRows } = await docsScript();
    expect(check({}, ['development'])).toEqual([]);
    const listed = sizeRows(DIST).map(([figure]) => figure);
    expect(listed).toEqual([...[...scripts].sort().map((f) => `dist/${f} size`), 'dist/ JavaScript in all']);

    // A build that makes other chunks than the table names is drift, and says what to run.
    const other = mkdtempSync(join(tmpdir(), 'dist-other-'));
    cpSync(DIST, other, { recursive: true });
    const chunk = scripts.find((f) => f !== 'index.js');
    expect(chunk).toMatch(/^\d+\.index\.js$/);
    rmSync(join(other, chunk ?? ''));
    expect(check({ dist: other }, ['development'])).toEqual([
      expect.stringContaining('run `npm run docs` (after `npm run build`) and commit docs/development.md'),
    ]);
  });
});
