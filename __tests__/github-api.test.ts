// The GitHub side's rules against the GitHub emulator over real sockets, in process: which comment
// is kept (paging, identity, marker), which pull request a push points to, and how labels and
// reviewers fail one by one. The end-to-end files run the same paths through the bundle once each.
import { describe, expect, it } from '@jest/globals';
import { connectedDuring, gitHubForFile } from '../__fixtures__/github-api.js';
import { runContext, APP, BOT, DOCS, DOCS_TOKEN, world } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';

const github = gitHubForFile();

// Never aborted: how long GitHub's answers take is the machine's business, not these tests'.
const signal = () => new AbortController().signal;
const [owner, repo] = APP.split('/') as [string, string];

/** The repository's token, and the warnings said with it. */
function setUp() {
  const { pr, docsPr } = world(github.gh);
  const warnings: string[] = [];
  const api = github.gitHubApi(WORKFLOW_TOKEN, 'github-api-test', github.gh.apiUrl);
  const kept = (number: number, marker = '<!-- agent-job-action:000000000000000000000001 -->', pull = true) =>
    new github.KeptComment(api, { owner, repo, number, pull, fork: false }, marker, (m) => warnings.push(m));
  return { pr, docsPr, warnings, api, kept };
}

describe('the kept comment', () => {
  it('is found among 150 comments, past the first page, and updated', async () => {
    const { pr, kept, warnings } = setUp();
    for (let i = 0; i < 120; i++)
      github.gh.addComment(APP, pr.number, { login: `user${i % 7}`, body: `LGTM ${i}` });
    await kept(pr.number).write('<!-- agent-job-action:000000000000000000000001 -->\nfirst run', signal());
    for (let i = 0; i < 30; i++)
      github.gh.addComment(APP, pr.number, { login: 'octocat', body: `later ${i}` });

    const before = github.gh.count('listComments');
    const { url } = await kept(pr.number).write(
      '<!-- agent-job-action:000000000000000000000001 -->\nre-run',
      signal(),
    );
    expect(warnings).toEqual([]);
    expect(pr.comments).toHaveLength(151);
    // Comment 121 is on the second page of 100.
    expect(github.gh.count('listComments') - before).toBe(2);
    expect(pr.comments[120]?.body).toContain('re-run');
    expect(url).toBe(`${github.gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${pr.comments[120]?.id}`);
  });

  it('is never one that someone else wrote, whatever marker it carries', async () => {
    const { pr, kept } = setUp();
    const marker = '<!-- agent-job-action:000000000000000000000001 -->';
    const planted = github.gh.addComment(APP, pr.number, {
      login: 'mallory',
      body: `${marker}\n[click here](https://evil.example)`,
    });
    await kept(pr.number, marker).write(`${marker}\nours`, signal());
    expect(planted.body).toBe(`${marker}\n[click here](https://evil.example)`);
    expect(pr.comments.map((c) => c.login)).toEqual(['mallory', BOT]);
  });

  it('is never one of its own identity that only quotes the marker: it counts only at the start', async () => {
    const { pr, kept } = setUp();
    const marker = '<!-- agent-job-action:000000000000000000000001 -->';
    // Another workflow of the repository, with the same token, echoed an outsider's text.
    const echoed = github.gh.addComment(APP, pr.number, { login: BOT, body: `> You wrote:\n> ${marker}` });
    await kept(pr.number, marker).write(`${marker}\nours`, signal());
    expect(echoed.body).toBe(`> You wrote:\n> ${marker}`);
    expect(pr.comments.map((c) => c.body)).toEqual([`> You wrote:\n> ${marker}`, `${marker}\nours`]);
  });

  it('is another comment for another marker (a matrix leg with another prompt)', async () => {
    const { pr, kept } = setUp();
    const cli = '<!-- agent-job-action:00000000000000000000c1c1 -->';
    const sdk = '<!-- agent-job-action:0000000000000000000005d4 -->';
    await kept(pr.number, cli).write(`${cli}\nCLI`, signal());
    await kept(pr.number, sdk).write(`${sdk}\nSDK`, signal());
    await kept(pr.number, cli).write(`${cli}\nCLI again`, signal());
    expect(pr.comments.map((c) => c.body)).toEqual([`${cli}\nCLI again`, `${sdk}\nSDK`]);
  });

  it('goes on an issue as an issue comment', async () => {
    const { kept } = setUp();
    const issue = github.gh.thread(APP, { pull: false });
    const { url } = await kept(issue.number, undefined, false).write('on the issue', signal());
    expect(issue.comments).toHaveLength(1);
    expect(url).toContain(`/issues/${issue.number}#issuecomment-`);
  });

  it('is posted anew when it was deleted since it was found', async () => {
    const { pr, kept } = setUp();
    const comment = kept(pr.number);
    const first = await comment.write('<!-- agent-job-action:000000000000000000000001 -->\nfirst', signal());
    pr.comments.splice(0);
    // What the first write left is handed to the next: it edits that comment, gone since.
    await comment.write('<!-- agent-job-action:000000000000000000000001 -->\nlast', signal(), first);
    expect(pr.comments.map((c) => c.body)).toEqual([
      '<!-- agent-job-action:000000000000000000000001 -->\nlast',
    ]);
  });
});

describe('the pull request of a push', () => {
  it('is the one the pushed commit was merged by, else the first that contains it', async () => {
    const { api } = setUp();
    const sha = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const other = github.gh.thread(APP, { commits: [sha] });
    const merged = github.gh.thread(APP, { mergeCommitSha: sha });
    const run = runContext({ eventName: 'push', payload: { after: sha } });
    expect((await github.findThread(api, run, signal())).thread?.number).toBe(merged.number);

    const contained = 'b1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const only = github.gh.thread(APP, { commits: [contained] });
    const second = runContext({ eventName: 'push', payload: { after: contained } });
    expect((await github.findThread(api, second, signal())).thread?.number).toBe(only.number);
    expect(other.comments).toEqual([]);
  });

  it('is none, with the reason, when no pull request contains the commit', async () => {
    const { api } = setUp();
    const run = runContext({
      eventName: 'push',
      payload: { after: '0123456789abcdef0123456789abcdef01234567' },
    });
    expect(await github.findThread(api, run, signal())).toEqual({
      none: 'no pull request contains the pushed commit 0123456789ab',
    });
  });
});

describe('labels and reviewers on the docs pull request', () => {
  it('warn one by one: a team of another organisation, reviewers GitHub refuses; labels still land', async () => {
    const { docsPr } = setUp();
    github.gh.fail('requestReviewers', {
      status: 422,
      message: 'Reviews may only be requested from collaborators.',
    });
    const warnings: string[] = [];
    const [docsOwner, docsRepo] = DOCS.split('/') as [string, string];
    await github.routeDocsPullRequest(
      github.gitHubApi(DOCS_TOKEN, 'github-api-test', github.gh.apiUrl),
      { owner: docsOwner, repo: docsRepo, number: docsPr.number },
      { labels: ['docs'], reviewers: ['outsider', 'other-org/writers'] },
      (m) => warnings.push(m),
      signal(),
    );
    expect(docsPr.labels).toEqual(['docs']);
    expect(warnings).toEqual([
      `Could not request the team other-org/writers on ${DOCS}#${docsPr.number}: only teams of acme can review its pull requests.`,
      `Could not request reviewers on ${DOCS}#${docsPr.number}: GitHub refused it (422 "Reviews may only be requested from collaborators."). Reviewers must be collaborators on ${DOCS}, and the pull request's author cannot review it.`,
    ]);
  });
});

describe('a client’s connection', () => {
  it('is ended by close(): its socket is gone, a later call fails, and a client that made no call closes too', async () => {
    const sockets = await connectedDuring(async () => {
      const api = github.gitHubApi(WORKFLOW_TOKEN, 'github-api-test', github.gh.apiUrl);
      expect(await api.viewerLogin(signal())).toBe(BOT);
      await api.close();
      await expect(api.viewerLogin(signal())).rejects.toThrow();
    });
    expect(sockets.map((s) => s.port)).toEqual([github.gh.port]);
    expect(sockets.filter((s) => !s.socket.destroyed).map((s) => s.port)).toEqual([]);
    await github.gitHubApi(WORKFLOW_TOKEN, 'github-api-test', github.gh.apiUrl).close();
  });
});
