// The maintainer's release path (scripts/release.mjs), run for real in a clone of this repository:
// it refuses what it must, and a release sets the version, rebuilds dist/, tags vX.Y.Z and moves vX.
// Its proof that the committed dist/ was the build of its source is checked on a small project of
// the same shape, whose build takes no time.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';
import { differsOnlyByVersion } from '../scripts/dist-version-diff.mjs';

let clone: string;
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release@example.com',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release@example.com',
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, env, encoding: 'utf8' }).trim();
const release = (...args: string[]) =>
  spawnSync(process.execPath, ['scripts/release.mjs', ...args], { cwd: clone, env, encoding: 'utf8' });
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), 'release-'));
  made.push(clone);
  execFileSync('git', ['clone', '--quiet', '--branch', 'main', ROOT, clone]);
  // Hard links: the same files at the same relative path, so the build is the one CI checks.
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]);
  git('tag', 'v1.0.0');
});

describe('npm run release', () => {
  it('refuses a version that is not above the last release, or not a version', () => {
    expect(release('1.0.0').stderr).toContain('release: v1.0.0 exists already.');
    expect(release('0.9.0').stderr).toContain('release: 0.9.0 is not above the latest release v1.0.0.');
    expect(release('next').stderr).toContain('usage: npm run release -- X.Y.Z');
  });

  it('refuses a working tree with changes', () => {
    writeFileSync(join(clone, 'stray.txt'), 'x');
    const result = release('1.1.0');
    execFileSync('rm', [join(clone, 'stray.txt')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the working tree has changes');
  });

  it('releases: version in one place, dist/ rebuilt, vX.Y.Z tagged, v1 moved, notes drafted', () => {
    const result = release('1.1.0');
    expect(result.stderr).not.toContain('release:');
    expect(result.status).toBe(0);
    const head = git('rev-parse', 'HEAD');
    expect(git('rev-parse', 'v1.1.0^{commit}')).toBe(head);
    expect(git('rev-parse', 'v1^{commit}')).toBe(head);
    expect(git('log', '-1', '--format=%s')).toBe('Release v1.1.0');
    expect(git('status', '--porcelain')).toBe('');
    const pkg = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBe('1.1.0');
    // The User-Agent's version comes from package.json, through the rebuilt bundle.
    expect(readFileSync(join(clone, 'dist', 'index.js'), 'utf8')).toContain('"1.1.0"');
    const changelog = readFileSync(join(clone, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(/## Unreleased\n\n## 1\.1\.0 — \d{4}-\d{2}-\d{2}\n\n### Added/);
    const notes = join(clone, 'build', 'release-notes-v1.1.0.md');
    expect(existsSync(notes)).toBe(true);
    expect(readFileSync(notes, 'utf8')).toContain('### Added');
    expect(result.stdout).toContain('git push --force origin v1');
  });

  it('refuses to release with nothing under Unreleased', () => {
    expect(release('1.2.0').stderr).toContain('CHANGELOG.md has no notes under "## Unreleased"');
  });
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
  it('passes a dist/ that the rebuild changes at the version alone', () => {
    const { dir, run } = smallProject();
    const result = run('1.10.0');
    expect(result.stderr).not.toContain('release:');
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, 'dist', 'index.js'), 'utf8')).toContain('{"rE":"1.10.0"}');
  });

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
