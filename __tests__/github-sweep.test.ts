// The GitHub side of a report run, against the GitHub emulator: the threads whose job a run left
// at work are found by their label (closed ones too), each by the action's own comment whose record
// waits, whatever step wrote it; and one's end is written over a session pinned to that thread —
// its comment, its pending status on its own commit and context, the label off. A branch's job
// left at work is recorded as a git ref, listed in one request, and its record deleted once GitHub
// shows its status no longer waits.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '../__fixtures__/clock.js';
import { gitHubForFile, reportRequest } from '../__fixtures__/github-api.js';
import { APP, BOT, DOCS, runContext, sha, world } from '../__fixtures__/github-world.js';
import { recorder } from '../__fixtures__/log.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { ReportRequest, ThreadNote } from '../src/core/ports.js';

const github = gitHubForFile();
type InFlight = typeof import('../src/github/in-flight.js');
type WaitingEnd = typeof import('../src/github/waiting-end.js');
type Session = typeof import('../src/github/session.js');
type Note = typeof import('../src/github/note.js');
type BranchRecord = typeof import('../src/github/branch-record.js');
type BranchWaiting = typeof import('../src/github/branch-waiting.js');
let inFlight: InFlight;
let records: BranchRecord;
let branches: BranchWaiting;
let waitingEnd: WaitingEnd;
let sessions: Session;
let notes: Note;
beforeAll(async () => {
  inFlight = await import('../src/github/in-flight.js');
  waitingEnd = await import('../src/github/waiting-end.js');
  sessions = await import('../src/github/session.js');
  notes = await import('../src/github/note.js');
  records = await import('../src/github/branch-record.js');
  branches = await import('../src/github/branch-waiting.js');
});

const never = () => new AbortController().signal;
/** A report run's own step: no thread, no status of its own. */
const request = reportRequest({ thread: false, status: false });
/** The thread step's own status context (runContext's workflow, job and step; the request's project). */
const CONTEXT = 'docs agent: docs / refresh / docs (proj)';
const MARKER = '<!-- agent-job-action:thread-step -->';

/** A report run (a schedule's) in acme/app. */
function sweepSession(asks: ReportRequest = request) {
  const log = recorder();
  const run = runContext({ serverUrl: github.gh.serverUrl, eventName: 'schedule', payload: {}, runId: 900 });
  const session = new sessions.GitHubSession(asks, {
    run,
    api: (token: string) => github.gitHubApi(token, 'github-sweep-test', github.gh.apiUrl),
    clock: new ManualClock(),
    log,
  });
  return { session, lines: log.lines };
}

/** A thread whose run 77 left job `job` at work: its comment (by another step), its label, its pending status. */
function waitingThread(job: string, head: string, closed = false) {
  const { gh } = github;
  const pr = gh.thread(APP, { headSha: head, ...(closed ? { state: 'closed' as const } : {}) });
  const note: ThreadNote = {
    job,
    run: 77,
    attempt: 1,
    uses: 1,
    waiting: {
      run: 77,
      at: 1,
      timeout: 3_600_000,
      status: { sha: head, context: CONTEXT },
      labels: ['docs'],
    },
  };
  gh.addComment(APP, pr.number, { login: BOT, body: `${MARKER}\n${notes.noteLine(note)}\n⏩ **Started**` });
  // The status the record names, as run 77 left it: what vouches for the record's commit.
  gh.addStatus(APP, head, {
    creator: BOT,
    context: CONTEXT,
    description: `Goes on in the service: job ${job} · run 77`,
    state: 'pending',
  });
  pr.labels.push('docs-agent-working');
  return { pr, note };
}

describe('findWaiting', () => {
  it('finds every labelled thread whose own comment waits, closed ones too, and none other', async () => {
    world(github.gh);
    const open = waitingThread('job-open', sha(2));
    const closed = waitingThread('job-closed', sha(3), true);
    // Labelled, but the comment is someone else's: not the action's record.
    const planted = github.gh.thread(APP);
    github.gh.addComment(APP, planted.number, {
      login: 'mallory',
      body: `${MARKER}\n${notes.noteLine(open.note)}`,
    });
    planted.labels.push('docs-agent-working');
    const { session } = sweepSession();
    const found = await inFlight.findWaiting(session, never());
    expect(found.map((f) => [f.thread.number, f.note.job, f.marker])).toEqual([
      [closed.pr.number, 'job-closed', MARKER],
      [open.pr.number, 'job-open', MARKER],
    ]);
    await session.close();
  });
});

describe('reportWaitingThread', () => {
  it("writes the end on the thread's own comment and status, labels the docs PR, and takes the label off", async () => {
    const { docsPr, docsLink } = world(github.gh);
    const { pr } = waitingThread('job-done', sha(4));
    const { session, lines } = sweepSession();
    const [found] = await inFlight.findWaiting(session, never());
    if (!found) throw new Error('the waiting thread was not found');
    const job = { id: 'job-done', status: 'completed', prLink: docsLink };
    await waitingEnd.reportWaitingThread(session, found, { kind: 'ended', job }, never());
    const kept0 = pr.comments.find((c) => c.body.startsWith(MARKER));
    // Each write said in the log: the comment (with its link), the status, the labels.
    expect(lines).toEqual([
      `info: Updated the comment on ${APP}#${pr.number}: ${github.gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${kept0?.id ?? ''}`,
      `info: Set the commit status "${CONTEXT}" on ${sha(4).slice(0, 12)}: success, "Completed: job job-done · run 77".`,
      `info: Labelled ${docsPr.number ? `acme/docs#${docsPr.number}` : ''}: docs.`,
      `info: Posted the note on acme/docs#${docsPr.number} that names its thread, ${APP}#${pr.number}.`,
      `info: Took the label docs-agent-working off ${APP}#${pr.number}.`,
    ]);
    // The docs PR names the thread whose job opened it, in one comment of the action's own.
    expect(docsPr.comments.map((c) => c.body.split('\n')[0])).toEqual([
      `<!-- agent-job-docs-of ${APP}#${pr.number} job job-done -->`,
    ]);
    const kept = pr.comments.find((c) => c.body.startsWith(MARKER));
    expect(pr.comments).toHaveLength(1);
    expect(kept?.body).toContain('✅ **Completed**');
    expect(notes.readNote(kept?.body ?? '')?.waiting).toBeUndefined();
    expect(github.gh.statuses(APP, sha(4))[0]).toMatchObject({
      state: 'success',
      context: CONTEXT,
      target_url: docsLink,
      description: 'Completed: job job-done · run 77',
    });
    expect(docsPr.labels).toEqual(['docs']);
    expect(pr.labels).toEqual([]);
    await session.close();
  });
});

describe('a thread another run reported meanwhile', () => {
  it('is not written again: the comment is read afresh before the end is written', async () => {
    const { docsLink } = world(github.gh);
    const { pr, note } = waitingThread('job-raced', sha(5));
    const { session } = sweepSession();
    const [found] = await inFlight.findWaiting(session, never());
    if (!found) throw new Error('the waiting thread was not found');
    // The thread's own next run reported the job between the sweep's list and its write.
    const kept = pr.comments[0];
    if (!kept) throw new Error('no kept comment');
    const done: ThreadNote = { ...note };
    delete done.waiting;
    kept.body = `${MARKER}\n${notes.noteLine(done)}\n✅ **Completed**`;
    const before = github.gh.requests.length;
    const job = { id: 'job-raced', status: 'completed', prLink: docsLink };
    const wrote = await waitingEnd.reportWaitingThread(session, found, { kind: 'ended', job }, never());
    expect(wrote).toBe(false);
    expect(github.gh.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    // Only the pending status run 77 left: nothing written over it.
    expect(github.gh.statuses(APP, sha(5)).map((s) => s.state)).toEqual(['pending']);
    await session.close();
  });
});

describe('a waiting job that took the thread over from a refused one', () => {
  it("closes the earlier docs pull request once the job's end brings its own, as the run that left it would have", async () => {
    const { gh } = github;
    world(gh);
    const SERVICE = 'docs-writer[bot]';
    const earlier = gh.thread(DOCS);
    const successor = gh.thread(DOCS);
    for (const docs of [earlier, successor]) {
      docs.opener = SERVICE;
      docs.pullCommits = [{ sha: docs.headSha, author: SERVICE, committer: 'web-flow' }];
    }
    const link = (n: number) => `${gh.serverUrl}/${DOCS}/pull/${n}`;
    const pr = gh.thread(APP, { headSha: sha(6) });
    const note: ThreadNote = {
      job: 'job-new',
      run: 77,
      attempt: 1,
      superseded: [link(earlier.number)],
      waiting: { run: 77, at: 1, timeout: 3_600_000 },
    };
    gh.addComment(APP, pr.number, { login: BOT, body: `${MARKER}\n${notes.noteLine(note)}\n⏩ **Started**` });
    pr.labels.push('docs-agent-working');
    const { session } = sweepSession();
    const [found] = await inFlight.findWaiting(session, never());
    if (!found) throw new Error('the waiting thread was not found');
    const job = { id: 'job-new', status: 'completed', prLink: link(successor.number) };
    expect(await waitingEnd.reportWaitingThread(session, found, { kind: 'ended', job }, never())).toBe(true);
    expect(earlier.state).toBe('closed');
    expect(successor.state).toBe('open');
    const kept = pr.comments.find((c) => c.body.startsWith(MARKER))?.body ?? '';
    expect(notes.readNote(kept)?.superseded).toBeUndefined();
    expect(notes.readNote(kept)?.waiting).toBeUndefined();
    await session.close();
  });
});

/** A run of the thread's step on a push of `head` to `branch` that left its job at work (`wait: false`). */
function pushSession(head: string, projectId: string, runId = 77) {
  const log = recorder();
  const payload = {
    ref: 'refs/heads/feature',
    before: '0'.repeat(40),
    after: head,
    repository: { name: 'app', owner: { login: 'acme' } },
  };
  const run = runContext({ serverUrl: github.gh.serverUrl, eventName: 'push', payload, sha: head, runId });
  const session = new sessions.GitHubSession(reportRequest({ wait: false, projectId }), {
    run,
    api: (token: string) => github.gitHubApi(token, 'github-sweep-test', github.gh.apiUrl),
    clock: new ManualClock(),
    log,
  });
  return { session, lines: log.lines };
}

/** The workflow's token with `contents: write` on acme/app besides the rest. */
function contentsWrite() {
  github.gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: [APP], contents: [APP] });
}

/** A commit's SHA for the records' tests: hex, apart from the other tests' `sha(n)`. */
const commit = (n: number) => `b${String(n).padStart(39, '0')}`;

/**
 * Job `job` of project `projectId` left at work on `head` by run `run`: this step's pending status
 * there, and its record. Each test has a project of its own: the emulator is the file's.
 */
async function leftOnBranch(projectId: string, job: string, head: string, run = 77) {
  const { session, lines } = pushSession(head, projectId, run);
  const context = session.status?.context ?? '';
  github.gh.addStatus(APP, head, {
    creator: BOT,
    context,
    description: `Goes on in the service: job ${job} · run ${run}`,
    state: 'pending',
  });
  await records.recordBranchWaiting(session, head, job, never());
  await session.close();
  return { context, lines };
}

describe("a branch's job left at work, recorded as a git ref", () => {
  it("is recorded once, on a branch's thread only; a record again (a re-run) is no fault; without contents: write, one warning", async () => {
    world(github.gh);
    contentsWrite();
    const { context, lines } = await leftOnBranch('proj-r1', 'job-br-1', commit(1));
    const listed = github.gh.refs(APP).filter((r) => r.ref.startsWith('refs/agent-job-action/'));
    expect(listed).toEqual([
      {
        ref: expect.stringMatching(
          /^refs\/agent-job-action\/waiting\/[0-9a-f]{16}\/[0-9a-f]{16}\/[0-9a-f]{32}$/,
        ),
        sha: commit(1),
      },
    ]);
    expect(lines).toEqual([
      `info: Recorded agent job job-br-1, left at work on ${commit(1).slice(0, 12)}, as ${listed[0]?.ref}.`,
    ]);
    const again = pushSession(commit(1), 'proj-r1');
    await records.recordBranchWaiting(again.session, commit(1), 'job-br-1', never());
    expect(again.lines).toEqual([]);
    // A push of a pull request's commit: its thread is the pull request's, found by its label.
    github.gh.thread(APP, { commits: [commit(2)] });
    const pulled = pushSession(commit(2), 'proj-r1');
    await records.recordBranchWaiting(pulled.session, commit(2), 'job-br-2', never());
    expect(pulled.lines).toEqual([]);
    world(github.gh);
    const refused = pushSession(commit(3), 'proj-r1');
    await records.recordBranchWaiting(refused.session, commit(3), 'job-br-3', never());
    expect(refused.lines).toEqual([
      expect.stringMatching(
        /^warning: Could not record agent job job-br-3, left at work on b00000000000, for report runs .*\(403 "Resource not accessible by integration"\): githubToken needs contents: write on acme\/app.* Without such records, report runs look for a branch's job only among the default branch's 10 newest commits\.$/,
      ),
    ]);
    expect(github.gh.refs(APP).filter((r) => r.ref.startsWith('refs/agent-job-action/'))).toEqual(listed);
    expect(context).toMatch(/^docs agent: /);
    for (const s of [again.session, pulled.session, refused.session]) await s.close();
  });

  it("lists every record of this project's step in one request, and believes only this step's own status on the record's commit", async () => {
    world(github.gh);
    contentsWrite();
    const { context } = await leftOnBranch('proj-r2', 'job-br-4', commit(4));
    await leftOnBranch('proj-r2', 'job-br-4', commit(5), 78);
    // Buried under 150 statuses of others, and under an older one of its own in another context.
    for (let i = 0; i < 150; i++)
      github.gh.addStatus(APP, commit(4), { creator: 'ci[bot]', context: `ci/${i}`, description: 'ok' });
    // Ended since (another run wrote its end): the record stands for nothing that waits.
    await leftOnBranch('proj-r2', 'job-br-6', commit(6));
    github.gh.addStatus(APP, commit(6), {
      creator: BOT,
      context,
      description: 'Completed: job job-br-6 · run 77',
      state: 'success',
    });
    // A ref of the record's shape that no status of this step vouches for.
    const { session: any } = pushSession(commit(7), 'proj-r2');
    const planted = records.recordName(any, context, 'job-planted', commit(7));
    github.gh.addRef(APP, `refs/${planted}`, commit(7));
    await any.close();

    // Another project's record in the same repository is not listed.
    await leftOnBranch('proj-other', 'job-br-other', commit(4));
    const { session, lines } = sweepSession(
      reportRequest({ thread: false, status: false, projectId: 'proj-r2' }),
    );
    const before = github.gh.requests.length;
    const found = await branches.findBranchWaiting(session, never());
    const asked = github.gh.requests.slice(before).map((r) => r.route);
    expect(found.head).toBeUndefined();
    const byJob = Object.fromEntries(found.jobs.map((j) => [j.job, j]));
    expect(Object.keys(byJob).sort()).toEqual(['job-br-4', 'job-br-6']);
    expect(byJob['job-br-4']).toMatchObject({
      run: 78,
      pending: expect.arrayContaining([
        expect.objectContaining({ sha: commit(4), context }),
        expect.objectContaining({ sha: commit(5), context }),
      ]),
    });
    expect(byJob['job-br-6']?.pending).toEqual([]);
    expect(lines).toEqual([
      `warning: refs/${planted} names no status of this step on ${commit(7).slice(0, 12)}: it is not this action's record, and is left as it is.`,
    ]);
    // One list, one identity query, and each record's commit's statuses as far as needed (two
    // pages where 150 others came after; the planted one's to its end).
    expect(asked.filter((r) => r === 'listMatchingRefs')).toHaveLength(1);
    expect(asked.filter((r) => r === 'listCommits')).toHaveLength(0);
    expect(asked.filter((r) => r === 'listStatuses')).toHaveLength(5);
    await session.close();
  });

  it('writes the end, then deletes each record once its status no longer waits; a status write that fails keeps its record', async () => {
    world(github.gh);
    contentsWrite();
    const { context } = await leftOnBranch('proj-r3', 'job-br-8', commit(8));
    await leftOnBranch('proj-r3', 'job-br-9', commit(9));
    const { session, lines } = sweepSession(
      reportRequest({ thread: false, status: true, projectId: 'proj-r3' }),
    );
    const found = await branches.findBranchWaiting(session, never());
    const eight = found.jobs.find((j) => j.job === 'job-br-8');
    const nine = found.jobs.find((j) => j.job === 'job-br-9');
    if (!eight || !nine) throw new Error('the recorded jobs were not found');
    const done = { kind: 'ended' as const, job: { id: 'job-br-8', status: 'failed' } };
    await branches.writeBranchEnd(session, eight, done, never());
    expect(github.gh.statuses(APP, commit(8))[0]).toMatchObject({ state: 'failure', context });
    const left = () =>
      github.gh
        .refs(APP)
        .filter((r) => r.ref.startsWith('refs/agent-job-action/'))
        .map((r) => r.sha);
    expect(left()).not.toContain(commit(8));
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^info: Deleted refs\/agent-job-action\/waiting\/.* no status of agent job job-br-8 waits there\.$/,
      ),
    );
    github.gh.fail('createStatus', { status: 422, message: 'No commit found for SHA' });
    await branches.writeBranchEnd(session, nine, { kind: 'lost' }, never());
    expect(github.gh.statuses(APP, commit(9))[0]).toMatchObject({ state: 'pending' });
    expect(left()).toContain(commit(9));
    await session.close();
  });
});
