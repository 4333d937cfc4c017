// The maintainer's release path (scripts/release.mjs), run for real in a clone of this repository:
// it refuses what it must, and a release sets the version, rebuilds dist/, tags vX.Y.Z and moves vX.
// Its proof that the committed dist/ was the build of its source, and what it puts back when it
// stops, are checked on a small project in release-check.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_ENV } from '../__fixtures__/git.js';
import { ROOT } from '../__fixtures__/runner.js';

let clone: string;
const env = GIT_ENV;
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
