// The maintainer's release path (scripts/release.mjs) on a small project of the release's shape,
// whose build and type check take no time: what it refuses, its proof that the committed dist/ is
// the build of its source (a release never rewrites dist/: nothing in it names the version), what
// it puts back when it stops, and a release: the version set, vX.Y.Z tagged, vX moved, notes
// drafted. CI's check-dist proves the same of this repository's own dist/ on every change.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_ENV } from '../__fixtures__/git.js';
import { ROOT } from '../__fixtures__/runner.js';

const env = GIT_ENV;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project of the release script's shape whose build takes no time, on main, tagged v1.0.0. */
function smallProject(): {
  dir: string;
  run: (...args: string[]) => ReturnType<typeof spawnSync>;
  inDir: (...args: string[]) => string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'release-small-'));
  made.push(dir);
  const inDir = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(ROOT, 'scripts', 'release.mjs'), join(dir, 'scripts', 'release.mjs'));
  const build = `const fs = require('fs'); fs.rmSync('dist', { recursive: true, force: true }); fs.mkdirSync('dist'); fs.writeFileSync('dist/index.js', fs.readFileSync('src.js', 'utf8'));`;
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
  writeFileSync(join(dir, '.gitignore'), 'build/\n');
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

describe('npm run release', () => {
  it('releases: the version set, dist/ untouched, vX.Y.Z tagged, v1 moved, notes drafted', () => {
    const { dir, run, inDir } = smallProject();
    const dist = inDir('rev-parse', 'HEAD:dist');
    const result = run('1.1.0');
    expect(result.stderr).not.toContain('release:');
    expect(result.status).toBe(0);
    const head = inDir('rev-parse', 'HEAD');
    expect(inDir('rev-parse', 'v1.1.0^{commit}')).toBe(head);
    expect(inDir('rev-parse', 'v1^{commit}')).toBe(head);
    expect(inDir('log', '-1', '--format=%s')).toBe('Release v1.1.0');
    expect(inDir('rev-parse', 'HEAD:dist')).toBe(dist);
    expect(inDir('status', '--porcelain')).toBe('');
    expect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version).toBe(
      '1.1.0',
    );
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      /## Unreleased\n\n## 1\.1\.0 — \d{4}-\d{2}-\d{2}\n\n### Fixed/,
    );
    expect(readFileSync(join(dir, 'build', 'release-notes-v1.1.0.md'), 'utf8')).toContain('- A thing.');
    expect(String(result.stdout)).toContain('git push --force origin v1');
    // Nothing under Unreleased now: the next release has nothing to say.
    expect(String(run('1.2.0').stderr)).toContain('CHANGELOG.md has no notes under "## Unreleased"');
  });

  it('refuses a version that is not above the last release, or not a version, and a tree with changes', () => {
    const { dir, run } = smallProject();
    expect(String(run('1.0.0').stderr)).toContain('release: v1.0.0 exists already.');
    expect(String(run('0.9.0').stderr)).toContain('release: 0.9.0 is not above the latest release v1.0.0.');
    expect(String(run('next').stderr)).toContain('usage: npm run release -- X.Y.Z');
    writeFileSync(join(dir, 'stray.txt'), 'x');
    expect(String(run('1.1.0').stderr)).toContain('the working tree has changes');
  });
});

describe('the check that the committed dist/ is the build of its source', () => {
  it('refuses a dist/ that is not the build of its source, and puts everything back', () => {
    const { dir, run, inDir } = smallProject();
    writeFileSync(join(dir, 'src.js'), 'export const answer = 43;\n');
    inDir('commit', '--quiet', '-am', 'source changed, dist/ not rebuilt');
    const head = inDir('rev-parse', 'HEAD');
    const result = run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'release: the committed dist/ is not the build of its source (dist/index.js differ): run npm run build, commit dist/, then release.',
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
    expect(result.stderr).toContain('(dist/stale-chunk.js differ)');
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
});
