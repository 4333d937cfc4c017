// `paths` as GitHub's filters read it, tried against the examples of GitHub's "filter pattern cheat
// sheet" (workflow syntax), and the ways a glob library would read the same text differently.
import { describe, expect, it } from '@jest/globals';
import { compilePaths, PATHS_LIMITS, PathsError } from '../src/decide/paths.js';

const relevant = async (patterns: string[], files: string[]) =>
  (await compilePaths(patterns).relevant(files)).relevant;
const matches = async (patterns: string[], file: string) => (await relevant(patterns, [file])).length > 0;

describe("GitHub's documented examples", () => {
  it.each([
    [['*'], ['README.md', 'server.rb'], ['docs/file.txt']],
    [['*.jsx?'], ['page.js', 'page.jsx'], ['page.jsxx', 'a/page.js']],
    [['**'], ['all/the/files.md', '.github/workflows/ci.yml', 'a'], []],
    [['*.js'], ['app.js', 'index.js'], ['js/index.js']],
    [['**.js'], ['index.js', 'js/index.js', 'src/js/app.js'], ['index.jsx']],
    [['docs/*'], ['docs/README.md', 'docs/file.txt'], ['docs/mona/octocat.txt', 'README.md']],
    [['docs/**'], ['docs/README.md', 'docs/mona/octocat.txt'], ['README.md', 'mydocs/a.md']],
    [
      ['docs/**/*.md'],
      ['docs/README.md', 'docs/mona/hello-world.md', 'docs/a/markdown/file.md'],
      ['docs/a.txt'],
    ],
    [['**/docs/**'], ['docs/hello.md', 'dir/docs/my-file.txt', 'space/docs/plan/space.doc'], ['mydocs/a.md']],
    [['**/README.md'], ['README.md', 'js/README.md'], ['README.mdx']],
    [['**/*src/**'], ['a/src/app.js', 'my-src/code/js/app.js'], ['source/app.js']],
    [['**/*-post.md'], ['my-post.md', 'path/their-post.md'], ['post.md']],
    [
      ['**/migrate-*.sql'],
      ['migrate-10909.sql', 'db/migrate-v1.0.sql', 'db/sept/migrate-v1.sql'],
      ['migrate.sql'],
    ],
    [['*.md', '!README.md'], ['hello.md'], ['README.md', 'docs/hello.md']],
    [['*.md', '!README.md', 'README*'], ['hello.md', 'README.md', 'README.doc'], []],
    [['feature/*'], ['feature/my-branch', 'feature/your-branch'], ['feature/a/b']],
    [['feature/**'], ['feature/beta-a/my-branch', 'feature/your-branch', 'feature/mona/the/octocat'], []],
    [['v2*'], ['v2', 'v2.0', 'v2.9'], ['v1.2']],
    [['v[12].[0-9]+.[0-9]+'], ['v1.10.1', 'v2.0.0'], ['v3.0.0', 'v1.a.1', 'v1.10']],
  ])('%j', async (patterns, matched, unmatched) => {
    for (const file of matched) expect([file, await matches(patterns, file)]).toEqual([file, true]);
    for (const file of unmatched) expect([file, await matches(patterns, file)]).toEqual([file, false]);
  });
});

describe('order, negation and what the filter returns', () => {
  it('lets the last matching pattern decide: a later negation excludes, a later positive re-includes', async () => {
    const filter = compilePaths(['src/**', '!src/**/*.test.ts', 'src/fixtures/**']);
    expect(
      (await filter.relevant(['src/a.ts', 'src/a.test.ts', 'src/fixtures/b.test.ts', 'README.md'])).relevant,
    ).toEqual(['src/a.ts', 'src/fixtures/b.test.ts']);
  });

  it('starts from nothing when the first pattern is a negation', async () => {
    expect(await relevant(['!docs/**'], ['src/a.ts', 'docs/a.md'])).toEqual([]);
  });

  it('matches dotfiles like any other file', async () => {
    expect(await matches(['*'], '.env')).toBe(true);
    expect(await matches(['**/*.yml'], '.github/workflows/ci.yml')).toBe(true);
  });

  it('ignores blank lines and the spaces around a pattern', async () => {
    expect(await relevant(['', '  src/**  ', '   '], ['src/a.ts'])).toEqual(['src/a.ts']);
  });
});

describe('file names from a stranger', () => {
  it('answers patterns a backtracking matcher would take exponential time over, and rightly', async () => {
    // A fork's pull request names its files; each pattern-and-name pair is matched in at most
    // (pieces × characters) steps, whatever they hold.
    const deep = `${'a/'.repeat(400)}c`;
    expect(await matches(['**/a/**/a/**/a/**/a/**/b'], deep)).toBe(false);
    expect(await matches(['**/a/**/a/**/a/**/a/**/c'], deep)).toBe(true);
    const long = 'a'.repeat(1000);
    expect(await matches(['*a*a*a*a*a*b'], long)).toBe(false);
    expect(await matches(['a+a+a+a+a+b'], long)).toBe(false);
    expect(await matches(['a+a+a+a+a+'], long)).toBe(true);
  });

  it('takes a name longer than any path it matches over as relevant, never as a reason to skip', async () => {
    expect(await matches(['!**'], `${'x'.repeat(5000)}.md`)).toBe(true);
  });
});

describe('characters a glob library would read otherwise', () => {
  it.each([
    ['{a,b}.md', '{a,b}.md', 'a.md'],
    ['(a|b).md', '(a|b).md', 'a.md'],
    ['@(x).md', '@(x).md', 'x.md'],
    ['#notes.md', '#notes.md', 'notes.md'],
    ['a?b', 'ab', 'axb'],
  ])('%j is GitHub’s, not a glob’s: matches %j, not %j', async (pattern, yes, no) => {
    expect(await matches([pattern], yes)).toBe(true);
    expect(await matches([pattern], no)).toBe(false);
  });

  it('takes escaped specials literally', async () => {
    expect(await matches(['a\\*b'], 'a*b')).toBe(true);
    expect(await matches(['a\\*b'], 'axb')).toBe(false);
    expect(await matches(['\\!important.md'], '!important.md')).toBe(true);
    expect(await matches(['c\\+\\+/*'], 'c++/main.cc')).toBe(true);
    expect(await matches(['what\\?.md'], 'what?.md')).toBe(true);
    expect(await matches(['\\[draft].md'], '[draft].md')).toBe(true);
  });

  it('reads a ! after the start as a plain character', async () => {
    expect(await matches(['docs/!draft.md'], 'docs/!draft.md')).toBe(true);
  });
});

describe('a pattern GitHub would not read', () => {
  it.each([
    [
      ['src/**', 'src/[a-'],
      'line 2 ("src/[a-") is not a pattern GitHub\'s filters read: a [ is never closed',
    ],
    [['+a'], 'line 1 ("+a") is not a pattern GitHub\'s filters read: + must follow a character'],
    [['*?'], '? must follow a character or a [] class'],
    [['!'], 'a ! with nothing after it excludes nothing'],
    [['a\\'], 'it ends with a \\ that escapes nothing'],
    [['[z-a]'], 'ranges are a-z, A-Z or 0-9, low to high'],
    [['[]'], '[] lists no character'],
    [['./src/**'], 'without a leading ./'],
  ])('%j', (patterns, said) => {
    expect(() => compilePaths(patterns)).toThrow(PathsError);
    expect(() => compilePaths(patterns)).toThrow(said);
  });

  it('says what patterns are, in one line that names the input', async () => {
    expect(() => compilePaths(['[x'])).toThrow(
      /^Input "paths" line 1 \("\[x"\) is not a pattern GitHub's filters read: a \[ is never closed\. Patterns use \*, \*\*, \?, \+, \[\] and a leading ! \(see GitHub's filter pattern cheat sheet\)\.$/,
    );
  });
});

describe('work bounded whatever the patterns and names', () => {
  // Names a fork's pull request could list, against patterns within the limits that keep every
  // state of their automaton alive at every character and never match.
  const names = Array.from({ length: 3000 }, (_, i) => `${'a'.repeat(4000)}${i}`);
  const hostile = Array.from({ length: 100 }, () => `**${'a'.repeat(220)}b*`);

  it('stops at its bound of work and leaves the rest undecided, never guessed', async () => {
    // Shorter names against fewer patterns, and a bound of 5 million state-steps (a twentieth of
    // the action's): a few names are decided before it, the rest are not, on any machine.
    const short = names.map((name) => name.slice(-400));
    const few = hostile.slice(0, 10);
    const { relevant, undecided } = await compilePaths(few, 5_000_000).relevant(short);
    expect(relevant).toEqual([]);
    expect(undecided).toBeGreaterThan(0);
    expect(undecided).toBeLessThan(short.length);
    // Counted in work, not time: the same count is left undecided every time.
    expect((await compilePaths(few, 5_000_000).relevant(short)).undecided).toBe(undecided);
  });

  it('lets the event loop run while it matches: an abort ends matching with its reason', async () => {
    const controller = new AbortController();
    const stop = new Error('cancelled by SIGINT');
    // Runs only if matching yields; matching that never did would finish first and resolve.
    setImmediate(() => controller.abort(stop));
    await expect(compilePaths(hostile).relevant(names, controller.signal)).rejects.toBe(stop);
  }, 60_000);

  it('matches a pattern of many pieces against a long name without recursion', async () => {
    const pieces = `${'a?'.repeat(16)}${'x/'.repeat(100)}**`;
    const name = `${'x/'.repeat(2000)}end`;
    expect(await matches([pieces], name)).toBe(true);
    expect(await matches([`${'x/'.repeat(120)}*.md`], name)).toBe(false);
  });
});

describe('limits on the patterns', () => {
  it('reads up to the limits', () => {
    const { patterns, length, wildcards } = PATHS_LIMITS;
    expect(() => compilePaths(Array.from({ length: patterns }, (_, i) => `d${i}/**`))).not.toThrow();
    expect(() => compilePaths([`d/${'x'.repeat(length - 2)}`])).not.toThrow();
    expect(() => compilePaths(['a*'.repeat(wildcards)])).not.toThrow();
  });

  it.each([
    [
      Array.from({ length: 101 }, (_, i) => `d${i}/**`),
      'Input "paths" has 101 patterns; at most 100 are read.',
    ],
    [[`d/${'x'.repeat(255)}`], 'is 257 characters long; a pattern may have at most 256.'],
    [['a*'.repeat(33)], 'has 33 wildcards (*, ?, +); a pattern may have at most 32.'],
    [[`${'**/'.repeat(2000)}a.md`], 'is 6004 characters long'],
  ])('refuses past them: %#', (patterns, said) => {
    expect(() => compilePaths(patterns)).toThrow(PathsError);
    expect(() => compilePaths(patterns)).toThrow(said);
  });
});
