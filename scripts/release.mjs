// `npm run release -- 1.2.0 [--push]`: a maintainer's release, from a clean main. The version is
// semver's X.Y.Z (no leading zeros, no pre-release or build suffix); a leading `v` (`v1.2.0`) is
// read as the version after it, and said. The tag is built from the numbers read, never the text.
//   1. checks: a clean tree on main, a new version above the last tag, notes for it in the
//      CHANGELOG (under "## Unreleased", and under "## 1.2.0" if that was drafted by hand);
//   2. runs the project's tests (`npm test`: it builds dist/, type-checks, then runs jest) before
//      it changes anything, and stops if they fail. The build in them rewrites dist/, which must
//      come out exactly as committed (as CI checks): else the committed dist/ is stale and it stops.
//      Either way it puts dist/ back first;
//   3. sets the version in package.json (the one it already holds too: the first release of a
//      project that says 1.0.0 is 1.0.0) and moves the CHANGELOG's notes under it, then rebuilds
//      dist/ once more: nothing in dist/ names the version (the User-Agent names the ref the runner
//      gives, GITHUB_ACTION_REF), so a release never rewrites the bundle. Otherwise it puts
//      everything back and stops; else it commits;
//   4. tags vX.Y.Z and moves the major tag vX to it (what workflows pinned to @v1 run): vX stays
//      a plain git tag, never a GitHub release, so it can move even with immutable releases;
//   5. writes the release notes to build/release-notes-vX.Y.Z.md and prints the commands that
//      publish it (or, with --push, pushes main and both tags itself). The GitHub release, and its
//      GitHub Marketplace listing, are made by hand: see docs/publishing.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const push = args.includes('--push');
const given = args.find((a) => !a.startsWith('--'));
const fail = (message) => {
  console.error(`release: ${message}`);
  process.exit(1);
};
const run = (command, rest, stdout = 'pipe') =>
  execFileSync(command, rest, { encoding: 'utf8', stdio: ['ignore', stdout, 'inherit'] })?.trim();
const git = (...rest) => run('git', rest);
const npmCommand = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npm = (...rest) => run(npmCommand, rest);
/** `X.Y.Z` as semver writes it (no leading zeros), as numbers npm can hold; else `undefined`. */
const numbers = (v) => {
  const found = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(v)?.slice(1).map(Number);
  return found?.every(Number.isSafeInteger) ? found : undefined;
};
/** A release tag, `vX.Y.Z`. */
const parse = (tag) => (tag.startsWith('v') ? numbers(tag.slice(1)) : undefined);
const newer = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
/** What `git status` lists, one path each, files in new directories included (untrimmed: " M path"). */
const changed = () =>
  execFileSync('git', ['status', '--porcelain', '-z', '--untracked-files=all'], { encoding: 'utf8' })
    .split('\0')
    .filter(Boolean)
    .map((entry) => entry.slice(3));

if (!given) fail('usage: npm run release -- X.Y.Z [--push], e.g. npm run release -- 1.2.3');
// A leading `v` is how the tag is written, not part of the version: taken off, and said.
const bare = /^v\d/.test(given) ? given.slice(1) : given;
const parsed = numbers(bare);
if (!parsed) {
  fail(
    `${JSON.stringify(given)} is not a version: give three numbers, major.minor.patch, such as 1.2.3 (no leading zeros, no suffix such as -rc.1). Usage: npm run release -- X.Y.Z [--push]`,
  );
}
const [major, minor, patch] = parsed;
const version = `${major}.${minor}.${patch}`;
const tag = `v${version}`;
if (bare !== given)
  console.log(`release: ${JSON.stringify(given)} is read as version ${version} (tag ${tag}).`);

if (git('status', '--porcelain')) fail('the working tree has changes: commit or stash them first.');
if (git('rev-parse', '--abbrev-ref', 'HEAD') !== 'main') fail('releases are made from main.');
const tags = git('tag', '--list', 'v*.*.*')
  .split('\n')
  .filter((t) => parse(t));
if (tags.includes(tag)) fail(`${tag} exists already.`);
const latest = tags.map(parse).sort(newer).at(-1);
if (latest && newer(parsed, latest) <= 0)
  fail(`${version} is not above the latest release v${latest.join('.')}.`);

// A section runs from its heading to the next "## " heading or the end of the file.
const section = (heading) => new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm');
const changelog = readFileSync('CHANGELOG.md', 'utf8');
const escaped = version.replaceAll('.', '\\.');
const dated = new RegExp(`^## ${escaped}[^\\S\\n]+\\S.*$`, 'm').exec(changelog);
if (dated) fail(`CHANGELOG.md has "${dated[0]}" already: was ${version} released? Choose another version.`);
const unreleased = section('Unreleased').exec(changelog);
// A "## X.Y.Z" drafted by hand (no date: not released yet) gets the Unreleased notes after its own.
const drafted = section(escaped).exec(changelog);
const notes = [drafted?.[1].trim(), unreleased?.[1].trim()].filter(Boolean).join('\n\n');
if (!unreleased || !notes)
  fail('CHANGELOG.md has no notes under "## Unreleased": say what this release changes.');

const date = new Date().toISOString().slice(0, 10);
/** Everything the steps below change, as it was: a release that stops leaves no trace. */
const restoreDist = () => {
  git('checkout', '--', 'dist');
  git('clean', '--quiet', '--force', '--', 'dist');
};
const restore = () => {
  git('checkout', '--', 'package.json', 'package-lock.json', 'CHANGELOG.md');
  restoreDist();
};
const staleDist = (paths) =>
  `the committed dist/ is not the build of its source (${paths.join(', ')} differ): run npm run build, commit dist/, then release.`;

// The tests come first, before anything changes. `npm test` builds dist/ (and type-checks: ncc
// only transpiles), so its stdout goes to the terminal: a full run takes minutes.
console.log('Running the tests (npm test)…');
try {
  run(npmCommand, ['test'], 'inherit');
} catch {
  restoreDist();
  fail('the tests failed (npm test): fix what they say above, then release. Nothing was changed.');
}
const afterTests = changed();
if (afterTests.length) {
  // Only dist/ is put back: anything else the tests wrote stays for you to look at.
  restoreDist();
  const dist = afterTests.filter((path) => path.startsWith('dist/'));
  const other = afterTests.filter((path) => !path.startsWith('dist/'));
  const kept = `${other.join(', ')} (kept for you to look at: a test must write outside the tree)`;
  if (!dist.length) fail(`the tests left ${kept}. Nothing was released.`);
  fail(`${staleDist(dist)}${other.length ? ` The tests also left ${kept}.` : ''}`);
}

let stale;
try {
  let next = changelog;
  if (drafted) next = next.replace(section(escaped), '');
  next = next.replace(section('Unreleased'), `## Unreleased\n\n## ${version} — ${date}\n\n${notes}\n\n`);
  writeFileSync('CHANGELOG.md', next.replace(/\n+$/, '\n'));
  // --allow-same-version: a first release is often the version package.json already holds.
  npm('version', version, '--no-git-tag-version', '--allow-same-version');
  console.log('Rebuilding dist/ with the new version: it must not change…');
  npm('run', '--silent', 'build');
  stale = changed().filter((path) => path.startsWith('dist/'));
} catch (error) {
  restore();
  fail(`${error.message.split('\n')[0]}; nothing was committed and the tree is as it was.`);
}
if (stale.length) {
  restore();
  fail(
    `the build writes the version into dist/ (${stale.join(', ')} differ with ${version}): a release must not rewrite the bundle; take the version out of it, then release.`,
  );
}
git('add', 'package.json', 'package-lock.json', 'CHANGELOG.md');
git('commit', '--quiet', '-m', `Release ${tag}`);
git('tag', '--annotate', tag, '--message', `${tag}\n\n${notes}`);
git('tag', '--force', '--annotate', `v${major}`, '--message', `${tag}`);
const sha = git('rev-parse', 'HEAD');

mkdirSync('build', { recursive: true });
const notesFile = join('build', `release-notes-${tag}.md`);
writeFileSync(
  notesFile,
  `${notes}\n\n### Pinning\n\n` +
    `\`@v${major}\` follows every fix and addition of v${major}; \`@${tag}\` is exactly this release; ` +
    `\`@${sha}  # ${tag}\` is exactly this commit.\n`,
);
console.log(`\nReleased ${tag} locally; v${major} now points to it. Release notes: ${notesFile}`);
const pushes = [`git push origin main ${tag}`, `git push --force origin v${major}`];
const release = `gh release create ${tag} --draft --verify-tag --title ${tag} --notes-file ${notesFile}`;
const marketplace = [
  `Then open the draft on GitHub (Releases), tick "Publish this Action to the GitHub Marketplace",`,
  `and publish it. Never make a release of v${major}: it is a plain tag that moves. See docs/publishing.md.`,
];
if (push) {
  git('push', 'origin', 'main', tag);
  git('push', '--force', 'origin', `v${major}`);
  console.log(`Pushed. Draft the release with:\n  ${release}\n${marketplace.join('\n')}`);
} else {
  console.log(
    `Publish it with:\n${[...pushes, release].map((c) => `  ${c}`).join('\n')}\n${marketplace.join('\n')}`,
  );
}
