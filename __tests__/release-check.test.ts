// The release script's proof that the committed dist/ was the build of its source
// (scripts/dist-version-diff.mjs), and what it puts back when a release stops, on a small project
// of the release's shape whose build and type check take no time. (release.test.ts runs a whole
// release of this repository.)
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_ENV } from '../__fixtures__/git.js';
import { ROOT } from '../__fixtures__/runner.js';
import { differsOnlyByVersion } from '../scripts/dist-version-diff.mjs';

const env = GIT_ENV;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * A project of the release script's shape whose build inlines the version as ncc does (`{"rE":"…"}`)
 * and takes no time, on main, tagged v1.0.0.
 */
function smallProject(): {
  dir: string;
  run: (...args: string[]) => ReturnType<typeof spawnSync>;
  inDir: (...args: string[]) => string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'release-small-'));
  made.push(dir);
  const inDir = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  mkdirSync(join(dir, 'scripts'));
  for (const file of ['release.mjs', 'dist-version-diff.mjs']) {
    cpSync(join(ROOT, 'scripts', file), join(dir, 'scripts', file));
  }
  const build = `const fs = require('fs'); const { version } = require('./package.json'); fs.rmSync('dist', { recursive: true, force: true }); fs.mkdirSync('dist'); fs.writeFileSync('dist/index.js', fs.readFileSync('src.js', 'utf8') + 'const pkg = {"rE":' + JSON.stringify(version) + '};\\n');`;
  writeFileSync(join(dir, 'build.cjs'), build);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'small', version: '1.0.0', private: true, scripts: { build: 'node build.cjs', typecheck: 'node --check build.cjs' } }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: 'small', version: '1.0.0', lockfileVersion: 3, packages: { '': { name: 'small', version: '1.0.0' } } }, null, 2)}\n`,
  );
  writeFileSync(join(dir, 'src.js'), 'export const answer = 42;\n');
  writeFileSync(
    join(dir, 'CHANGELOG.md'),
    '# Changelog\n\n## Unreleased\n\n### Fixed\n- A thing.\n\n## 1.0.0\n',
  );
  inDir('init', '--quiet', '--initial-branch', 'main');
  execFileSync(process.execPath, ['build.cjs'], { cwd: dir });
  inDir('add', '.');
  inDir('commit', '--quiet', '-m', 'v1.0.0');
  inDir('tag', 'v1.0.0');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/release.mjs', ...args], { cwd: dir, env, encoding: 'utf8' });
  return { dir, run, inDir };
}

describe('the check that the committed dist/ is the build of its source', () => {
  it('refuses a dist/ that is not the build of its source, and puts everything back', () => {
    const { dir, run, inDir } = smallProject();
    writeFileSync(join(dir, 'src.js'), 'export const answer = 43;\n');
    inDir('commit', '--quiet', '-am', 'source changed, dist/ not rebuilt');
    const head = inDir('rev-parse', 'HEAD');
    const result = run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'release: the committed dist/ is not the build of its source (dist/index.js differ by more than the version): run npm run build, commit dist/, then release.',
    );
    expect(inDir('status', '--porcelain')).toBe('');
    expect(inDir('rev-parse', 'HEAD')).toBe(head);
    expect(inDir('tag', '--list')).toBe('v1.0.0');
  });

  it('refuses a file the build adds or no longer writes', () => {
    const { dir, run, inDir } = smallProject();
    writeFileSync(join(dir, 'dist', 'stale-chunk.js'), 'old');
    inDir('add', '.');
    inDir('commit', '--quiet', '-m', 'a chunk the build no longer writes');
    const result = run('1.1.0');
    expect(result.stderr).toContain('(dist/stale-chunk.js differ by more than the version)');
    expect(inDir('status', '--porcelain')).toBe('');
  });

  it('puts everything back when the build fails, and says so', () => {
    const { run, inDir } = smallProject();
    inDir('rm', '--quiet', 'src.js');
    inDir('commit', '--quiet', '-m', 'the build cannot read its source');
    const result = run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'release: Command failed: npm run --silent build; nothing was committed and the tree is as it was.',
    );
    expect(inDir('status', '--porcelain')).toBe('');
    expect(inDir('tag', '--list')).toBe('v1.0.0');
  });

  it('refuses code that does not type-check, before it changes anything', () => {
    const { dir, run, inDir } = smallProject();
    writeFileSync(join(dir, 'build.cjs'), 'const = ;\n');
    inDir('commit', '--quiet', '-am', 'a syntax error');
    const result = run('1.1.0');
    expect(result.stderr).toContain('release: the type check failed (npm run typecheck)');
    expect(inDir('status', '--porcelain')).toBe('');
  });

  it.each([
    ['the same text', 'a{"rE":"1.0.0"}b', 'a{"rE":"1.0.0"}b', true],
    ['the version alone', 'a{"rE":"1.0.0"}b', 'a{"rE":"1.10.0"}b', true],
    ['the version and more', 'a{"rE":"1.0.0"}b', 'a{"rE":"1.10.0"}c', false],
    ['another change, the version kept', 'x = 1; {"rE":"1.0.0"}', 'x = 2; {"rE":"1.0.0"}', false],
    ['a literal of the new version elsewhere', '"1.10.0"; {"rE":"1.0.0"}', '"1.10.0"; {"rE":"1.10.0"}', true],
    ['the version without its quotes', 'v1.0.0', 'v1.10.0', false],
  ])('differsOnlyByVersion: %s', (_name, before, after, expected) => {
    expect(differsOnlyByVersion(before, after, '1.0.0', '1.10.0')).toBe(expected);
  });
});
