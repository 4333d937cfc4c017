// The GitHub side of a report run, against the GitHub emulator: the threads whose job a run left
// at work are found by their label (closed ones too), each by the action's own comment whose record
// waits, whatever step wrote it; and one's end is written over a session pinned to that thread —
// its comment, its pending status on its own commit and context, the label off.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '../__fixtures__/clock.js';
import { gitHubForFile, reportRequest } from '../__fixtures__/github-api.js';
import { APP, BOT, DOCS, runContext, sha, world } from '../__fixtures__/github-world.js';
import { recorder } from '../__fixtures__/log.js';
import type { ThreadNote } from '../src/core/ports.js';

const github = gitHubForFile();
type InFlight = typeof import('../src/github/in-flight.js');
type WaitingEnd = typeof import('../src/github/waiting-end.js');
type Session = typeof import('../src/github/session.js');
type Note = typeof import('../src/github/note.js');
let inFlight: InFlight;
let waitingEnd: WaitingEnd;
let sessions: Session;
let notes: Note;
beforeAll(async () => {
  inFlight = await import('../src/github/in-flight.js');
  waitingEnd = await import('../src/github/waiting-end.js');
  sessions = await import('../src/github/session.js');
  notes = await import('../src/github/note.js');
});

const never = () => new AbortController().signal;
/** A report run's own step: no thread, no status of its own. */
const request = reportRequest({ thread: false, status: false });
const CONTEXT = 'docs agent: Docs / docs (proj)';
const MARKER = '<!-- agent-job-action:thread-step -->';

/** A report run (a schedule's) in acme/app. */
function sweepSession() {
  const log = recorder();
  const run = runContext({ serverUrl: github.gh.serverUrl, eventName: 'schedule', payload: {}, runId: 900 });
  const session = new sessions.GitHubSession(request, {
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
      `info: Took the label docs-agent-working off ${APP}#${pr.number}.`,
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
    expect(github.gh.statuses(APP, sha(5))).toEqual([]);
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
