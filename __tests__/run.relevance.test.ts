// `paths` where GitHub's answer cannot be trusted to be whole, with run() in this process against
// both emulators: a list that may be partial (a forced push, a new branch, a capped list) lets the
// job go ahead with a warning that says why; patterns past the limits are bad inputs with nothing
// sent; hostile patterns against 3,000 long names end; and a skip on a thread (a docs PR closed
// unmerged) leaves a success status, so a required check never waits. The plain skips and
// relevant changes are in run.relevance-plain.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as run,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  pushTo,
  APP,
  changedFile,
  DOCS_TOKEN,
  gitHubEnv,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const PATHS = 'src/**\n!src/**/*.test.ts';

describe('a list that may be partial never skips', () => {
  it('a forced push: GitHub cannot compare it, its head commit touches only a test, and the job goes ahead with a warning naming the forced push', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    // No comparison of sha(1)...sha(3) is known: GitHub answers 404, as after a forced push.
    gh.commit(APP, { sha: sha(3), message: 'Add a test', files: [changedFile('src/app.test.ts')] });
    const result = await run({
      inputs: inputsFor(service, { paths: PATHS, status: 'true' }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ID: '31' },
      event: pushEvent(sha(3), { before: sha(1) }),
    });
    expect(result.code).toBe(0);
    expect(gh.count('compare')).toBe(1);
    expect(result.outputs.mode).toBe('created');
    expect(service.count('create')).toBe(1);
    expect(warnings(result)).toEqual([
      'GitHub could not compare the push with what came before (a forced push?), so only its head commit’s files are known. None of the 1 file listed is under paths, but one left out may be, so the job goes ahead.',
    ]);
    expect(gh.statuses(APP, sha(3)).map((s) => s.description)).not.toContain(
      'No docs-relevant change · run 31',
    );
  });

  it('a new default branch: only its head commit is known, so the job goes ahead', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    gh.commit(APP, { sha: sha(4), message: 'First commit', files: [changedFile('README.md')] });
    const result = await run({
      inputs: inputsFor(service, { paths: PATHS }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(4), {
        before: '0'.repeat(40),
        repository: { name: 'app', owner: { login: 'acme' }, default_branch: 'main' },
      }),
    });
    expect(result.outputs.mode).toBe('created');
    expect(warnings(result)).toEqual([
      expect.stringMatching(
        /^The push made the branch [^ ]+ with nothing to compare it with, so only its head commit’s files are known\. None of the 1 file listed/,
      ),
    ]);
  });

  it('more files than GitHub lists: 300 of a comparison, 3,000 of a pull request, none under paths, and the job goes ahead', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    const names = (n: number) => Array.from({ length: n }, (_, i) => changedFile(`test/case-${i}.txt`));
    gh.comparison(APP, `${sha(1)}...${sha(5)}`, { commits: [], files: names(300) });
    const pushed = await run({
      inputs: inputsFor(service, { paths: PATHS }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(5), { before: sha(1) }),
    });
    expect(pushed.outputs.mode).toBe('created');
    expect(warnings(pushed)).toEqual([
      'GitHub lists at most 300 files of a comparison and listed 300, so more may have changed. None of the 300 files listed is under paths, but one left out may be, so the job goes ahead.',
    ]);

    pr.files.push(...names(3000));
    const pulled = await run({
      inputs: inputsFor(service, { paths: PATHS }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(6)),
    });
    expect(gh.count('listPullFiles')).toBe(30);
    expect(pulled.outputs.mode).toBe('created');
    expect(warnings(pulled)).toEqual([
      'GitHub lists at most 3,000 files of a pull request and listed 3,000, so more may have changed. None of the 3,000 files listed is under paths, but one left out may be, so the job goes ahead.',
    ]);
    expect(service.count('create')).toBe(2);
  });
});

describe('a reply without files is files not known', () => {
  // GitHub's description lets a comparison or a commit leave `files` out: not "nothing changed",
  // and not a reply of the wrong shape.
  it('a comparison without files: the job goes ahead, and the warning says GitHub did not list them', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    gh.comparison(APP, `${sha(1)}...${sha(3)}`, {
      commits: [],
      files: [changedFile('README.md')],
      unlisted: true,
    });
    const result = await run({
      inputs: inputsFor(service, { paths: PATHS, status: 'true', context: 'auto' }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ID: '33' },
      event: pushEvent(sha(3), { before: sha(1) }),
    });
    expect(result.code).toBe(0);
    expect(result.outputs.mode).toBe('created');
    expect(service.count('create')).toBe(1);
    expect(warnings(result)).toEqual([
      'GitHub did not list the files of the push’s comparison (its reply left them out), so which files changed is unknown. Whether it touched paths is unknown, so the job goes ahead.',
    ]);
    const prompt = (service.requests.find((r) => r.route === 'create')?.json as { prompt: string }).prompt;
    expect(prompt).toContain('GitHub did not list the files of the push’s comparison');
  });

  it("a new branch's commit without files: the job goes ahead", async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    gh.commit(APP, { sha: sha(4), message: 'First commit', files: [], unlisted: true });
    const result = await run({
      inputs: inputsFor(service, { paths: PATHS }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(4), {
        before: '0'.repeat(40),
        repository: { name: 'app', owner: { login: 'acme' }, default_branch: 'main' },
      }),
    });
    expect(result.outputs.mode).toBe('created');
    expect(warnings(result)).toEqual([
      `GitHub did not list the files of the pushed commit ${sha(4).slice(0, 12)} (its reply left them out), so which files changed is unknown. Whether it touched paths is unknown, so the job goes ahead.`,
    ]);
  });

  it("a thread's comparison since the job last looked, without files: the follow-up is sent, never skipped as nothing new", async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const step = threadStep(service, gh);
    const opened = await run(step(pushTo(pr, sha(1), 'opened')));
    expect(opened.outputs.mode).toBe('created');
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, { commits: [], files: [], unlisted: true });
    const pushed = await run(step(pushTo(pr, sha(2))));
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId });
    expect(service.count('message')).toBe(1);
    const told = service.requests.find((r) => r.route === 'message')?.json as { prompt: string };
    expect(told.prompt).toContain('GitHub did not list the files of the comparison');
  });
});

describe('a list that could not be read never skips', () => {
  it("a pull request's files GitHub will not list: the job goes ahead, and the warning says why", async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    pr.files.push(changedFile('README.md'));
    gh.fail('listPullFiles', { status: 403, message: 'Resource not accessible by integration' });
    const result = await run({
      inputs: inputsFor(service, { paths: PATHS }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(9)),
    });
    expect(result.outputs.mode).toBe('created');
    expect(warnings(result)).toEqual([
      expect.stringMatching(/Whether it touched paths is unknown, so the job goes ahead\.$/),
    ]);
  });
});

describe('work bounded by outside data', () => {
  it('hostile patterns against 3,000 names of 400 characters end, and the job goes ahead', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({ final: { status: 'completed' } });
    // Each name keeps every state of each pattern alive at every character: the most work a
    // pattern within the limits can make. Names of 400 characters already cost each pattern more
    // than the bound below; longer ones would only make the 30 pages slower to read, and the
    // reads have a time budget of their own (30 s) that a loaded machine must not reach.
    pr.files.push(...Array.from({ length: 3000 }, (_, i) => changedFile(`${'a'.repeat(400)}${i}`)));
    const hostile = Array.from({ length: 100 }, (_, i) => `**${'a'.repeat(200 + (i % 20))}b*`).join('\n');
    // The bound of matching's work made small enough to reach in moments on any machine: what is
    // checked is that matching stops at it, whatever it is (paths.test.ts, and the bundle's own
    // bound in e2e.cancel.test.ts).
    const result = await run(
      { inputs: inputsFor(service, { paths: hostile }), env: gitHubEnv(gh), event: pushTo(pr, sha(7)) },
      { pathsWork: 2_000_000 },
    );
    expect(result.code).toBe(0);
    expect(result.outputs.mode).toBe('created');
    expect(warnings(result)).toEqual([
      expect.stringMatching(
        /^Matching paths against the 3,000 files changed reached its bound of work with [\d,]+ files left unmatched; whether they are under paths is unknown, so the job goes ahead\.$/,
      ),
    ]);
  });

  it.each([
    [
      '101 patterns',
      Array.from({ length: 101 }, (_, i) => `docs/${i}/**`).join('\n'),
      'Input "paths" has 101 patterns; at most 100 are read',
    ],
    [
      'a 2,000-deep pattern',
      `${'**/'.repeat(2000)}a.md`,
      'is 6004 characters long; a pattern may have at most 256',
    ],
    ['a pattern of 257 characters', `docs/${'x'.repeat(252)}`, 'is 257 characters long'],
    ['33 wildcards', `${'a*'.repeat(33)}`, 'has 33 wildcards (*, ?, +); a pattern may have at most 32'],
  ])('%s: a bad input, nothing sent', async (_what, paths, said) => {
    const gh = await github();
    world(gh);
    const service = await emulator();
    const result = await run({
      inputs: inputsFor(service, { paths }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(8)),
    });
    expect(result.code).toBe(1);
    expect(errors(result)).toEqual([expect.stringContaining(said)]);
    expect(errors(result)[0]).toMatch(/^Input "paths" /);
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

describe('every skip on a thread leaves a status', () => {
  it('a push after the docs PR was closed unmerged: skipped, nothing sent, and a success status that says how to start again', async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (head: string, runId: string) => ({
      inputs: inputsFor(service, { thread: 'true', status: 'true', trigger: '/docs', docsToken: DOCS_TOKEN }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ID: runId },
      event: pushTo(pr, head),
    });
    const opened = await run(options(sha(1), '41'));
    expect(opened.outputs.mode).toBe('created');

    docsPr.state = 'closed';
    const pushed = await run(options(sha(2), '42'));
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(notices(pushed)[0]).toMatch(
      /^Skipped: the docs pull request acme\/docs#\d+ of this thread was closed without merging/,
    );
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
    expect(gh.statuses(APP, sha(2))).toEqual([
      expect.objectContaining({
        state: 'success',
        description: 'Docs PR closed unmerged: ask with /docs to start again · run 42',
      }),
    ]);
  });
});
