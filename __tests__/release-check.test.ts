// The maintainer's release path (scripts/release.mjs) on a small project of the release's shape,
// whose build, type check and tests take no time: what it refuses, the project's tests run first
// (npm test, which builds dist/ and type-checks, as this repository's does) and a failure that
// stops it before it changes anything, its proof that the committed dist/ is the build of its
// source (a release never rewrites dist/: nothing in it names the version), what it puts back when
// it stops, and a release: the version set (the first one is the version package.json already
// holds), vX.Y.Z tagged, vX moved, notes drafted. The small project's `npm test` is its own quick
// script, never this repository's, so releasing it from this suite runs no suite recursively.
// CI's check-dist proves the same of this repository's own dist/ on every change.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_ENV } from '../__fixtures__/git.js';
import { ROOT } from '../__fixtures__/runner.js';

const env = GIT_ENV;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The small project's tests: dist/ exports a numeric answer; each run leaves a mark in build/. */
const TEST = `const fs = require('fs');
fs.mkdirSync('build', { recursive: true });
fs.appendFileSync('build/tests-ran', 'x');
if (!/^export const answer = \\d+;$/m.test(fs.readFileSync('dist/index.js', 'utf8'))) {
  console.error('dist/index.js: the answer is not a number');
  process.exit(1);
}
`;
const BUILD = `const fs = require('fs'); fs.rmSync('dist', { recursive: true, force: true }); fs.mkdirSync('dist'); fs.writeFileSync('dist/index.js', fs.readFileSync('src.js', 'utf8'));`;

/**
 * A project of the release script's shape whose build, type check and tests take no time, on main:
 * package.json says 1.0.0, tagged v1.0.0 unless `untagged` (its first release still to make).
 */
function smallProject(
  options: { untagged?: boolean; changelog?: string; build?: string; test?: string } = {},
): {
  dir: string;
  run: (...args: string[]) => ReturnType<typeof spawnSync>;
  inDir: (...args: string[]) => string;
  version: () => string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'release-small-'));
  made.push(dir);
  const inDir = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(ROOT, 'scripts', 'release.mjs'), join(dir, 'scripts', 'release.mjs'));
  writeFileSync(join(dir, 'build.cjs'), options.build ?? BUILD);
  writeFileSync(join(dir, 'test.cjs'), TEST);
  // As this repository's: `npm test` builds dist/ and type-checks (pretest), then tests.
  const scripts = {
    build: 'node build.cjs',
    typecheck: 'node --check build.cjs',
    pretest: 'npm run --silent build && npm run --silent typecheck',
    test: options.test ?? 'node test.cjs',
  };
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'small', version: '1.0.0', private: true, scripts }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: 'small', version: '1.0.0', lockfileVersion: 3, packages: { '': { name: 'small', version: '1.0.0' } } }, null, 2)}\n`,
  );
  writeFileSync(join(dir, 'src.js'), 'export const answer = 42;\n');
  writeFileSync(join(dir, '.gitignore'), 'build/\n');
  writeFileSync(
    join(dir, 'CHANGELOG.md'),
    options.changelog ?? '# Changelog\n\n## Unreleased\n\n### Fixed\n- A thing.\n\n## 1.0.0\n',
  );
  inDir('init', '--quiet', '--initial-branch', 'main');
  execFileSync(process.execPath, ['build.cjs'], { cwd: dir });
  inDir('add', '.');
  inDir('commit', '--quiet', '-m', options.untagged ? 'the first version' : 'v1.0.0');
  if (!options.untagged) inDir('tag', 'v1.0.0');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/release.mjs', ...args], { cwd: dir, env, encoding: 'utf8' });
  const version = () =>
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  return { dir, run, inDir, version };
}

/** What a release that stops leaves: the same commit, no new tag, nothing changed. */
function untouched(project: ReturnType<typeof smallProject>, head: string, tags: string): void {
  expect(project.inDir('rev-parse', 'HEAD')).toBe(head);
  expect(project.inDir('tag', '--list')).toBe(tags);
  expect(project.inDir('status', '--porcelain')).toBe('');
  expect(project.version()).toBe('1.0.0');
}

describe('npm run release', () => {
  it('releases: the tests run first, the version set, dist/ untouched, vX.Y.Z tagged, v1 moved, notes drafted', () => {
    const { dir, run, inDir, version } = smallProject();
    const dist = inDir('rev-parse', 'HEAD:dist');
    const result = run('1.1.0');
    expect(result.stderr).not.toContain('release:');
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, 'build', 'tests-ran'), 'utf8')).toBe('x');
    const head = inDir('rev-parse', 'HEAD');
    expect(inDir('rev-parse', 'v1.1.0^{commit}')).toBe(head);
    expect(inDir('rev-parse', 'v1^{commit}')).toBe(head);
    expect(inDir('log', '-1', '--format=%s')).toBe('Release v1.1.0');
    expect(inDir('rev-parse', 'HEAD:dist')).toBe(dist);
    expect(inDir('status', '--porcelain')).toBe('');
    expect(version()).toBe('1.1.0');
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      /## Unreleased\n\n## 1\.1\.0 — \d{4}-\d{2}-\d{2}\n\n### Fixed/,
    );
    const notes = readFileSync(join(dir, 'build', 'release-notes-v1.1.0.md'), 'utf8');
    expect(notes).toContain('- A thing.');
    expect(notes).toContain(
      `\`@v1\` follows every fix and addition of v1; \`@v1.1.0\` is exactly this release;`,
    );
    expect(notes).toContain(`\`@${head}  # v1.1.0\` is exactly this commit.`);
    const stdout = String(result.stdout);
    expect(stdout).toContain('git push --force origin v1');
    expect(stdout).toContain(
      'gh release create v1.1.0 --draft --verify-tag --title v1.1.0 --notes-file build/release-notes-v1.1.0.md',
    );
    expect(stdout).toContain('"Publish this Action to the GitHub Marketplace"');
    // Nothing under Unreleased now: the next release has nothing to say.
    expect(String(run('1.2.0').stderr)).toContain('CHANGELOG.md has no notes under "## Unreleased"');
  });

  it('makes the first release the version package.json already holds, then a later one', () => {
    const changelog = '# Changelog\n\n## Unreleased\n\n### Added\n- The first thing.\n';
    const { dir, run, inDir, version } = smallProject({ untagged: true, changelog });
    const first = run('1.0.0');
    expect(first.stderr).not.toContain('release:');
    expect(first.status).toBe(0);
    const released = inDir('rev-parse', 'HEAD');
    expect(inDir('rev-parse', 'v1.0.0^{commit}')).toBe(released);
    expect(inDir('rev-parse', 'v1^{commit}')).toBe(released);
    expect(inDir('log', '-1', '--format=%s')).toBe('Release v1.0.0');
    expect(inDir('status', '--porcelain')).toBe('');
    expect(version()).toBe('1.0.0');
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      /^# Changelog\n\n## Unreleased\n\n## 1\.0\.0 — \d{4}-\d{2}-\d{2}\n\n### Added\n- The first thing\.\n$/,
    );
    expect(readFileSync(join(dir, 'build', 'release-notes-v1.0.0.md'), 'utf8')).toMatch(
      /^### Added\n- The first thing\./,
    );

    writeFileSync(
      join(dir, 'CHANGELOG.md'),
      readFileSync(join(dir, 'CHANGELOG.md'), 'utf8').replace(
        '## Unreleased\n',
        '## Unreleased\n\n### Fixed\n- A fix.\n',
      ),
    );
    inDir('commit', '--quiet', '-am', 'a fix');
    const later = run('1.0.1');
    expect(later.stderr).not.toContain('release:');
    expect(later.status).toBe(0);
    const head = inDir('rev-parse', 'HEAD');
    expect(inDir('rev-parse', 'v1.0.1^{commit}')).toBe(head);
    expect(inDir('rev-parse', 'v1^{commit}')).toBe(head);
    expect(inDir('rev-parse', 'v1.0.0^{commit}')).toBe(released);
    expect(version()).toBe('1.0.1');
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      /## Unreleased\n\n## 1\.0\.1 — \S+\n\n### Fixed\n- A fix\.\n\n## 1\.0\.0 — \S+\n\n### Added\n- The first thing\.\n$/,
    );
  });

  it('puts the Unreleased notes under a "## X.Y.Z" drafted by hand, one section for the version', () => {
    const changelog =
      '# Changelog\n\n## Unreleased\n\n### Fixed\n- A thing.\n\n## 1.0.0\n\nFirst release: the basics.\n';
    const { dir, run, inDir } = smallProject({ untagged: true, changelog });
    const result = run('1.0.0');
    expect(result.status).toBe(0);
    expect(inDir('tag', '--list')).toBe('v1\nv1.0.0');
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      /^# Changelog\n\n## Unreleased\n\n## 1\.0\.0 — \S+\n\nFirst release: the basics\.\n\n### Fixed\n- A thing\.\n$/,
    );
  });

  it('refuses a version that is not above the last release, or not a version, and a tree with changes', () => {
    const { dir, run } = smallProject();
    expect(String(run('1.0.0').stderr)).toContain('release: v1.0.0 exists already.');
    expect(String(run('0.9.0').stderr)).toContain('release: 0.9.0 is not above the latest release v1.0.0.');
    for (const bad of [
      'next',
      '1.1',
      '01.1.0',
      '1.01.0',
      '1.1.00',
      '1.1.0-rc.1',
      '1.1.0+build',
      'vv1.1.0',
      ' 1.1.0',
      '1.1.0.0',
      '9007199254740993.0.0',
    ])
      expect(String(run(bad).stderr)).toContain(
        `release: ${JSON.stringify(bad)} is not a version: give three numbers, major.minor.patch, such as 1.2.3`,
      );
    writeFileSync(join(dir, 'stray.txt'), 'x');
    expect(String(run('1.1.0').stderr)).toContain('the working tree has changes');
  });

  it('refuses a version the CHANGELOG already dates', () => {
    const changelog = '# Changelog\n\n## Unreleased\n\n- More.\n\n## 1.0.0 — 2020-01-01\n\n- Old.\n';
    const project = smallProject({ untagged: true, changelog });
    const head = project.inDir('rev-parse', 'HEAD');
    expect(String(project.run('1.0.0').stderr)).toContain(
      'release: CHANGELOG.md has "## 1.0.0 — 2020-01-01" already: was 1.0.0 released?',
    );
    untouched(project, head, '');
  });
});

describe('the version given', () => {
  it('v1.1.0 is read as 1.1.0, and said: the tag is built from the numbers, never vv1.1.0', () => {
    const { dir, run, inDir, version } = smallProject();
    const result = run('v1.1.0');
    expect(result.status).toBe(0);
    expect(String(result.stdout)).toContain('release: "v1.1.0" is read as version 1.1.0 (tag v1.1.0).');
    expect(inDir('tag', '--list')).toBe('v1\nv1.0.0\nv1.1.0');
    expect(inDir('rev-parse', 'v1.1.0^{commit}')).toBe(inDir('rev-parse', 'HEAD'));
    expect(version()).toBe('1.1.0');
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(/^## 1\.1\.0 — /m);
    expect(existsSync(join(dir, 'build', 'release-notes-v1.1.0.md'))).toBe(true);
  });

  it('a version with leading zeros changes nothing, even when its numbers are above the last release', () => {
    const project = smallProject();
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.02.0');
    expect(result.status).toBe(1);
    expect(String(result.stderr)).toContain('release: "1.02.0" is not a version');
    untouched(project, head, 'v1.0.0');
    expect(existsSync(join(project.dir, 'build', 'tests-ran'))).toBe(false);
  });
});

describe('the tests, run before anything changes', () => {
  it('stops the release when the tests fail: no commit, no tag, the tree as it was', () => {
    const project = smallProject();
    const { dir, run, inDir } = project;
    // A consistent commit (dist/ rebuilt from its source) whose tests fail.
    writeFileSync(join(dir, 'src.js'), "export const answer = 'none';\n");
    execFileSync(process.execPath, ['build.cjs'], { cwd: dir });
    inDir('commit', '--quiet', '-am', 'the answer is not a number');
    const head = inDir('rev-parse', 'HEAD');
    const result = run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('dist/index.js: the answer is not a number');
    expect(result.stderr).toContain(
      'release: the tests failed (npm test): fix what they say above, then release. Nothing was changed.',
    );
    expect(readFileSync(join(dir, 'build', 'tests-ran'), 'utf8')).toBe('x');
    untouched(project, head, 'v1.0.0');
    expect(existsSync(join(dir, 'build', 'release-notes-v1.1.0.md'))).toBe(false);
  });

  it('stops on a test script that exits 1, before tagging, the tree untouched', () => {
    const project = smallProject({ untagged: true, test: 'node -e "process.exit(1)"' });
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.0.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('release: the tests failed (npm test)');
    untouched(project, head, '');
  });

  it('stops when the build in the tests fails, and puts dist/ back', () => {
    const project = smallProject();
    project.inDir('rm', '--quiet', 'src.js');
    project.inDir('commit', '--quiet', '-m', 'the build cannot read its source');
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('release: the tests failed (npm test)');
    untouched(project, head, 'v1.0.0');
  });

  it('stops on code that does not type-check', () => {
    const project = smallProject();
    writeFileSync(join(project.dir, 'build.cjs'), 'const = ;\n');
    project.inDir('commit', '--quiet', '-am', 'a syntax error');
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.stderr).toContain('release: the tests failed (npm test)');
    untouched(project, head, 'v1.0.0');
  });

  it('stops when the tests leave files in the tree, and leaves them there to look at', () => {
    const project = smallProject({ test: `node -e "require('fs').writeFileSync('leftover.txt', 'x')"` });
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'release: the tests left leftover.txt (kept for you to look at: a test must write outside the tree). Nothing was released.',
    );
    expect(project.inDir('status', '--porcelain')).toBe('?? leftover.txt');
    expect(project.inDir('tag', '--list')).toBe('v1.0.0');
    expect(project.inDir('rev-parse', 'HEAD')).toBe(head);
  });
});

describe('the check that the committed dist/ is the build of its source', () => {
  it('refuses a dist/ the tests rebuilt differently (stale), and puts everything back', () => {
    const project = smallProject();
    writeFileSync(join(project.dir, 'src.js'), 'export const answer = 43;\n');
    project.inDir('commit', '--quiet', '-am', 'source changed, dist/ not rebuilt');
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.status).toBe(1);
    expect(readFileSync(join(project.dir, 'build', 'tests-ran'), 'utf8')).toBe('x');
    expect(result.stderr).toContain(
      'release: the committed dist/ is not the build of its source (dist/index.js differ): run npm run build, commit dist/, then release.',
    );
    untouched(project, head, 'v1.0.0');
  });

  it('refuses a file the build adds or no longer writes', () => {
    const project = smallProject();
    writeFileSync(join(project.dir, 'dist', 'stale-chunk.js'), 'old');
    project.inDir('add', '.');
    project.inDir('commit', '--quiet', '-m', 'a chunk the build no longer writes');
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.stderr).toContain('(dist/stale-chunk.js differ)');
    untouched(project, head, 'v1.0.0');
  });

  it('refuses a build that writes the version into dist/, and puts everything back', () => {
    const build = `${BUILD} fs.appendFileSync('dist/index.js', '// ' + require('./package.json').version + '\\n');`;
    const project = smallProject({ build });
    const head = project.inDir('rev-parse', 'HEAD');
    const result = project.run('1.1.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'release: the build writes the version into dist/ (dist/index.js differ with 1.1.0): a release must not rewrite the bundle',
    );
    untouched(project, head, 'v1.0.0');
  });
});
