// The GitHub side as an object, in process, against the GitHub emulator over real sockets, with
// its time on a manual clock: the races between the first post and the last update, a comment
// deleted while the job ran, and the budgets that bound GitHub's work when the step ends or is
// cancelled. The end-to-end files run the same paths through the bundle once each.
import { describe, expect, it } from '@jest/globals';
import { gitHubForFile } from '../__fixtures__/github-api.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../__fixtures__/clock.js';
import { recorder, withoutWrites } from '../__fixtures__/log.js';
import { APP, runContext, world } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { Outcome, ReportRequest } from '../src/core/ports.js';

const github = gitHubForFile({ GITHUB_EVENT_NAME: 'schedule' });

const request: ReportRequest = {
  comment: true,
  labels: [],
  reviewers: [],
  githubToken: WORKFLOW_TOKEN,
  docsToken: WORKFLOW_TOKEN,
  docsTokenGiven: false,
  baseUrl: 'https://api.example.com',
  projectId: 'proj',
  prompt: 'Document the CLI',
  thread: false,
  status: false,
  wait: true,
  timeout: 600_000,
};
const completed: Outcome = {
  jobId: 'job_1',
  job: { id: 'job_1', status: 'completed' },
  confirmed: true,
  timedOut: false,
  waitedMs: 5000,
  memory: {},
};

/** A GitHub side for a pull request of acme/app, its lines recorded, its time on a manual clock. */
function setUp(overrides: Parameters<typeof runContext>[0] = {}, asked: Partial<ReportRequest> = {}) {
  const { pr } = world(github.gh);
  const log = recorder();
  const { lines } = log;
  const clock = new ManualClock();
  const run = runContext({
    serverUrl: github.gh.serverUrl,
    payload: { pull_request: { number: pr.number } },
    ...overrides,
  });
  const deps = {
    run,
    api: (token: string) => github.gitHubApi(token, 'github-report-test', github.gh.apiUrl),
    clock,
    log,
  };
  const side = github.gitHubSteps({ ...request, ...asked }, deps);
  return { pr, lines, clock, side, deps };
}

/**
 * Resolves once `done` holds (what the code under test has put on its clock, what GitHub has
 * received), checking every few milliseconds: a count of work, however long the machine takes.
 */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(5);
}

describe('the comment', () => {
  it('is posted once when the job starts and updated at the end, even when the end comes before the post', async () => {
    const { pr, lines, side } = setUp();
    github.gh.delay('createComment', 300);
    const started = side.execute.started('job_1', { id: 'job_1', status: 'active' }, {});
    // The job ends at once: the last update must wait for the first post, not make a second one.
    const url = await side.report.finish(completed, started, new AbortController().signal);
    // The log says what was written, and where: the post, then the update, with its link.
    expect(lines).toEqual([
      `info: Posted the comment on ${APP}#${pr.number}: ${url ?? ''}`,
      `info: Updated the comment on ${APP}#${pr.number}: ${url ?? ''}`,
    ]);
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('✅ **Completed**');
    expect(url).toBe(`${github.gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${pr.comments[0]?.id}`);
    expect(github.gh.count('createComment')).toBe(1);
  });

  it('is posted anew when someone deleted it while the job ran', async () => {
    const { pr, lines, side } = setUp();
    const before = github.gh.count('createComment');
    const started = side.execute.started('job_1', undefined, {});
    await until(() => pr.comments.length === 1);
    pr.comments.splice(0);
    await side.report.finish(completed, started, new AbortController().signal);
    expect(withoutWrites(lines)).toEqual([]);
    expect(pr.comments.map((c) => c.body.includes('✅ **Completed**'))).toEqual([true]);
    expect(github.gh.count('createComment') - before).toBe(2);
  });

  it('gets 1.2 s once the step is cancelled: a slow GitHub costs a warning, not the exit', async () => {
    const { pr, lines, side } = setUp();
    const started = side.execute.started('job_1', undefined, {});
    const first = side.report.finish(
      { ...completed, job: { id: 'job_1', status: 'active' }, failure: 'The step was cancelled (SIGINT).' },
      started,
      AbortSignal.abort(),
    );
    expect(await first).toBeDefined();
    expect(pr.comments[0]?.body).toContain('🛑 **Cancelled**');

    // Another run of the same step, cancelled, with GitHub never answering.
    const again = setUp();
    const listed = github.gh.count('listComments');
    github.gh.hold('listComments');
    const cancellation = new AbortController();
    cancellation.abort();
    const pending = again.side.report.finish(completed, undefined, cancellation.signal);
    let settled = false;
    void pending.then(() => (settled = true));
    // The clock moves once nothing real is in flight but the request GitHub holds.
    await until(() => github.gh.count('listComments') > listed);
    expect(again.clock.sleeping).toBe(1);
    await again.clock.advance(1199);
    expect(settled).toBe(false);
    expect(again.clock.sleeping).toBe(1);
    await again.clock.advance(1);
    expect(await pending).toBeUndefined();
    expect(withoutWrites(again.lines)).toEqual([
      expect.stringMatching(/^warning: Could not post the comment on acme\/app#\d+: GitHub did not answer/),
    ]);
    expect(withoutWrites(lines)).toEqual([]);
  });

  it('gets 30 s at the end of a step that was not cancelled, cut to 1.2 s if a cancellation comes', async () => {
    const { lines, clock, side } = setUp();
    const listed = github.gh.count('listComments');
    github.gh.hold('listComments');
    const cancellation = new AbortController();
    const pending = side.report.finish(completed, undefined, cancellation.signal);
    await until(() => github.gh.count('listComments') > listed);
    expect(clock.sleeping).toBe(1);
    await clock.advance(29_000);
    expect(clock.sleeping).toBe(1);
    // The cut budget's 1.2 s goes on the clock as the cancellation comes, beside the first.
    cancellation.abort();
    expect(clock.sleeping).toBe(2);
    await clock.advance(1200);
    expect(await pending).toBeUndefined();
    expect(withoutWrites(lines)).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: Could not post the comment/);
  });

  it('says the first post did not finish in time rather than racing it with a second one', async () => {
    const { pr, lines, clock, side } = setUp();
    const listed = github.gh.count('listComments');
    github.gh.hold('listComments');
    const started = side.execute.started('job_1', undefined, {});
    const pending = side.report.finish(completed, started, new AbortController().signal);
    // Both the first post's and the end's budgets run out.
    await until(() => github.gh.count('listComments') > listed);
    expect(clock.sleeping).toBe(2);
    await clock.advance(30_000);
    expect(await pending).toBeUndefined();
    expect(withoutWrites(lines)).toContain(
      'warning: Could not update the comment with how the job ended: GitHub did not answer in time.',
    );
    expect(pr.comments).toEqual([]);
  });

  it('is not posted, and GitHub not asked, on an event without a pull request or issue', async () => {
    const { lines, side } = setUp({ eventName: 'schedule', payload: {} });
    const before = github.gh.requests.length;
    const started = side.execute.started('job_1', undefined, {});
    expect(await side.report.finish(completed, started, new AbortController().signal)).toBeUndefined();
    expect(github.gh.requests.length).toBe(before);
    expect(withoutWrites(lines)).toEqual([
      'notice: No comment posted: a schedule run has no pull request or issue.',
    ]);
  });
});

describe('the context', () => {
  it('is nothing, without a request, for an event that changes nothing', async () => {
    const { lines, side } = setUp({ eventName: 'workflow_dispatch', payload: {} });
    const before = github.gh.requests.length;
    expect(await side.decide.context(undefined, 20_000, new AbortController().signal)).toBe('');
    expect(github.gh.requests.length).toBe(before);
    expect(withoutWrites(lines)).toEqual([
      'info: No context appended: a workflow_dispatch run changes nothing to describe.',
    ]);
  });

  it('gives up after 30 s of GitHub not answering, and the job goes on without it', async () => {
    const { lines, clock, side } = setUp({ eventName: 'pull_request' });
    const listed = github.gh.count('listPullFiles');
    github.gh.hold('listPullFiles');
    const pending = side.decide.context(undefined, 20_000, new AbortController().signal);
    await until(() => github.gh.count('listPullFiles') > listed);
    expect(clock.sleeping).toBe(1);
    await clock.advance(30_000);
    const text = await pending;
    expect(text).toContain('Context from GitHub');
    expect(lines.some((l) => l.startsWith('warning: Could not read the files of'))).toBe(true);
  });

  it('ends with the cancellation when the step is cancelled while gathering', async () => {
    const { side } = setUp({ eventName: 'pull_request' });
    const listed = github.gh.count('listPullFiles');
    github.gh.hold('listPullFiles');
    const cancellation = new AbortController();
    const pending = side.decide.context(undefined, 20_000, cancellation.signal);
    await until(() => github.gh.count('listPullFiles') > listed);
    const reason = new Error('cancelled by SIGINT');
    cancellation.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('labels and reviewers', () => {
  it('wait for a completed job with a pull request on this host, and say why when there is none', async () => {
    const { lines, side } = setUp({}, { comment: false, labels: ['docs'] });
    await side.report.finish(
      {
        ...completed,
        job: { id: 'job_1', status: 'completed', prLink: 'https://gitlab.com/a/b/-/merge_requests/1' },
      },
      undefined,
      new AbortController().signal,
    );
    await side.report.finish(completed, undefined, new AbortController().signal);
    await side.report.finish(
      { ...completed, job: { id: 'job_1', status: 'failed' }, failure: 'Agent job job_1 failed.' },
      undefined,
      new AbortController().signal,
    );
    expect(withoutWrites(lines)).toEqual([
      `notice: Labels and reviewers not set: https://gitlab.com/a/b/-/merge_requests/1 is not a pull request on ${github.gh.serverUrl} or https://github.com.`,
      'info: Labels and reviewers not set: the job changed no files, so it has no docs pull request.',
    ]);
  });
});

describe('a /docs request', () => {
  it("gets an 👀 on a review comment through the review comments' endpoint, once", async () => {
    const { pr, lines, deps } = setUp();
    const asked = github.gh.addReviewComment(APP, pr.number, { login: 'octocat', body: '/docs here' });
    const withAsk = github.gitHubSteps(
      { ...request, comment: false, asked: { id: asked.id, review: true } },
      deps,
    );
    const withAskStarted = withAsk.execute.started('job_1', undefined, {});
    await withAsk.report.finish(completed, withAskStarted, new AbortController().signal);
    expect(asked.reactions).toEqual(['eyes']);
    expect(github.gh.count('createReviewCommentReaction')).toBe(1);
    expect(withoutWrites(lines)).toEqual([]);
  });

  it("reads an actor's access, a custom role's too; a fault is a warning and no access", async () => {
    const { lines, side } = setUp();
    const signal = new AbortController().signal;
    github.gh.collaborator(APP, 'helper', 'triage');
    expect(await side.decide.accessOf('helper', signal)).toEqual({ permission: 'read', role: 'triage' });
    github.gh.collaborator(APP, 'writer', { name: 'docs-writer', base: 'write' });
    expect(await side.decide.accessOf('writer', signal)).toEqual({
      permission: 'write',
      role: 'docs-writer',
    });
    github.gh.collaborator(APP, 'keeper', 'maintain');
    expect(await side.decide.accessOf('keeper', signal)).toEqual({ permission: 'write', role: 'maintain' });
    github.gh.fail('getCollaboratorPermission', { status: 502, message: 'Server Error' });
    expect(await side.decide.accessOf('helper', signal)).toBeUndefined();
    expect(withoutWrites(lines)).toEqual([
      expect.stringMatching(/^warning: Could not read the role of helper on acme\/app: GitHub answered 502/),
    ]);
  });
});

describe("the chunk's entry", () => {
  it("makes the GitHub side from the run's context", async () => {
    const { startGitHub } = await import('../src/github/index.js');
    const lines: string[] = [];
    const side = startGitHub(
      { ...request, userAgent: 'github-report-test' },
      runContext({ eventName: 'schedule', apiUrl: github.gh.apiUrl }),
      {
        info: (m: string) => lines.push(m),
        notice: (m: string) => lines.push(m),
        warning: (m: string) => lines.push(m),
        debug: () => undefined,
      },
      new ManualClock(),
    );
    expect(await side.decide.context(undefined, 20_000, new AbortController().signal)).toBe('');
    expect(withoutWrites(lines)).toEqual([
      'No context appended: a schedule run changes nothing to describe.',
    ]);
  });
});
