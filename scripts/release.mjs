// `npm run release -- 1.2.0 [--push]`: a maintainer's release, from a clean main.
//   1. checks: a clean tree on main, a new version above the last tag, a CHANGELOG section for it;
//   2. type-checks, sets the version in package.json and moves the CHANGELOG's "Unreleased" notes
//      under it;
//   3. rebuilds dist/ and checks that it is exactly the committed one (as CI does): nothing in
//      dist/ names the version (the User-Agent names the ref the runner gives, GITHUB_ACTION_REF),
//      so a release never rewrites the bundle. Otherwise it puts everything back and stops; else
//      it commits;
//   4. tags vX.Y.Z and moves the major tag vX to it (what workflows pinned to @v1 run);
//   5. writes the release notes to build/release-notes-vX.Y.Z.md and prints the commands that
//      publish it (or, with --push, pushes main and both tags itself).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const push = args.includes('--push');
const version = args.find((a) => !a.startsWith('--'));
const fail = (message) => {
  console.error(`release: ${message}`);
  process.exit(1);
};
const run = (command, ...rest) =>
  execFileSync(command, rest, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const git = (...rest) => run('git', ...rest);
const npm = (...rest) => run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ...rest);
const parse = (v) => /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v)?.slice(1).map(Number);
const newer = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

if (!version || !parse(version)) fail('usage: npm run release -- X.Y.Z [--push]');
const [major] = parse(version);
const tag = `v${version}`;

if (git('status', '--porcelain')) fail('the working tree has changes: commit or stash them first.');
if (git('rev-parse', '--abbrev-ref', 'HEAD') !== 'main') fail('releases are made from main.');
const tags = git('tag', '--list', 'v*.*.*')
  .split('\n')
  .filter((t) => parse(t));
if (tags.includes(tag)) fail(`${tag} exists already.`);
const latest = tags.map(parse).sort(newer).at(-1);
if (latest && newer(parse(version), latest) <= 0)
  fail(`${version} is not above the latest release v${latest.join('.')}.`);

const changelog = readFileSync('CHANGELOG.md', 'utf8');
const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## )/m.exec(changelog);
const notes = unreleased?.[1].trim();
if (!notes) fail('CHANGELOG.md has no notes under "## Unreleased": say what this release changes.');

// ncc only transpiles: the type check is its own step, as in CI.
console.log('Type-checking…');
try {
  npm('run', '--silent', 'typecheck');
} catch {
  fail('the type check failed (npm run typecheck): fix what it says above, then release.');
}

const date = new Date().toISOString().slice(0, 10);
/** Everything the steps below change, as it was: a release that stops leaves no trace. */
const restore = () => {
  git('checkout', '--', 'package.json', 'package-lock.json', 'CHANGELOG.md', 'dist');
  git('clean', '--quiet', '--force', '--', 'dist');
};
let stale;
try {
  writeFileSync(
    'CHANGELOG.md',
    changelog.replace(
      /^## Unreleased\n[\s\S]*?(?=^## )/m,
      `## Unreleased\n\n## ${version} — ${date}\n\n${notes}\n\n`,
    ),
  );
  npm('version', version, '--no-git-tag-version');
  console.log('Rebuilding dist/ to check it is the build of its source…');
  npm('run', '--silent', 'build');
  stale = [git('diff', '--name-only', 'HEAD', '--', 'dist'), git('ls-files', '--others', '--', 'dist')]
    .join('\n')
    .split('\n')
    .filter(Boolean);
} catch (error) {
  restore();
  fail(`${error.message.split('\n')[0]}; nothing was committed and the tree is as it was.`);
}
if (stale.length) {
  restore();
  fail(
    `the committed dist/ is not the build of its source (${stale.join(', ')} differ): run npm run build, commit dist/, then release.`,
  );
}
git('add', 'package.json', 'package-lock.json', 'CHANGELOG.md');
git('commit', '--quiet', '-m', `Release ${tag}`);
git('tag', '--annotate', tag, '--message', `${tag}\n\n${notes}`);
git('tag', '--force', '--annotate', `v${major}`, '--message', `${tag}`);

mkdirSync('build', { recursive: true });
const notesFile = join('build', `release-notes-${tag}.md`);
writeFileSync(notesFile, `${notes}\n`);
console.log(`\nReleased ${tag} locally; v${major} now points to it. Release notes: ${notesFile}`);
const publish = [
  `git push origin main ${tag}`,
  `git push --force origin v${major}`,
  `gh release create ${tag} --title ${tag} --notes-file ${notesFile}`,
];
if (push) {
  git('push', 'origin', 'main', tag);
  git('push', '--force', 'origin', `v${major}`);
  console.log(`Pushed. Publish the release with:\n  ${publish[2]}`);
} else {
  console.log(`Publish it with:\n${publish.map((c) => `  ${c}`).join('\n')}`);
}
