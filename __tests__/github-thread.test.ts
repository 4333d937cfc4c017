// What the GitHub side remembers between runs, in process against the GitHub emulator: the
// thread's note in the kept comment (read only from the action's own comment, marker first), the
// commit status that follows the job and what a re-run or the branch's next push reads from it,
// the docs pull request's state, and a follow-up's context since the last head.
import { describe, expect, it } from '@jest/globals';
import { gitHubForFile, reportRequest } from '../__fixtures__/github-api.js';
import { ManualClock } from '../__fixtures__/clock.js';
import type { Clock } from '../src/core/clock.js';
import { recorder, withoutWrites } from '../__fixtures__/log.js';
import { APP, BOT, DOCS, DOCS_TOKEN, runContext, world } from '../__fixtures__/github-world.js';
import type { RunContext } from '../src/core/run-context.js';
import { nextLedger as nextNote, SUPERSEDED_KEPT } from '../src/core/ledger.js';
import { noteLine, readNote } from '../src/github/note.js';
import type { Memory, Outcome, ReportRequest } from '../src/core/ports.js';
import {
  readStatusNote,
  statusContext,
  statusDescription,
  unconfirmedFollowUp,
} from '../src/github/status.js';

const github = gitHubForFile();

const HEAD_1 = '1'.repeat(40);
const HEAD_2 = '2'.repeat(40);
const never = () => new AbortController().signal;
/** When the comments a test puts straight into the emulator were written: GitHub's times are RFC 3339. */
const AT = '2026-01-01T00:00:00Z';
const request: ReportRequest = reportRequest({ prompt: 'Document the change' });

function sideOf(run: RunContext, asked: Partial<ReportRequest> = {}, clock: Clock = new ManualClock()) {
  const log = recorder();
  const made = github.gitHubSteps(
    { ...request, ...asked },
    {
      run,
      api: (token: string) => github.gitHubApi(token, 'github-thread-test', github.gh.apiUrl),
      clock,
      log,
    },
  );
  return { side: made, lines: log.lines };
}

/** A run on pull request `number` of acme/app, whose head is `head`. */
function pullRun(number: number, head: string, overrides: Partial<RunContext> = {}): RunContext {
  return runContext({
    serverUrl: github.gh.serverUrl,
    eventName: 'pull_request',
    payload: { pull_request: { number, head: { sha: head } } },
    ...overrides,
  });
}

/** A push to main of `sha` on top of `prior`, by run `runId` (attempt `runAttempt`). */
function pushRun(sha: string, prior: string, runId: number, runAttempt = 1): RunContext {
  return runContext({
    serverUrl: github.gh.serverUrl,
    eventName: 'push',
    sha,
    runId,
    runAttempt,
    payload: { ref: 'refs/heads/main', before: prior, after: sha },
  });
}

/** A job that completed with `prLink`; whether the service confirmed it to this run is each test's to say. */
const done = (
  jobId: string,
  prLink: string | null,
  extra: Partial<Outcome> & Pick<Outcome, 'confirmed'>,
): Outcome => ({
  jobId,
  job: { id: jobId, status: 'completed', prLink },
  timedOut: false,
  waitedMs: 1000,
  memory: {},
  ...extra,
});

describe('the note', () => {
  it('round-trips, and a note that is not one reads as none', () => {
    const note = { job: 'job_1 --> <b>', head: HEAD_1, run: 4, attempt: 2 };
    expect(noteLine(note)).not.toContain('-->  ');
    expect(noteLine(note).match(/-->/g)).toHaveLength(1);
    expect(readNote(`x\n${noteLine(note)}\ny`)).toEqual(note);
    expect(readNote('<!-- agent-job-action:note not!base64 -->')).toBeUndefined();
    const forged = Buffer.from(JSON.stringify({ job: '', run: 1, attempt: 1 })).toString('base64url');
    expect(readNote(`<!-- agent-job-action:note ${forged} -->`)).toBeUndefined();
  });

  it('drops a recent run whose job the service could not have given, so a re-run never resumes it', () => {
    const runs = [
      { run: 5, attempt: 1, job: '..' },
      { run: 4, attempt: 1, job: 'job\u0007' },
      { run: 3, attempt: 1, job: 'job_3' },
    ];
    const note = { job: 'job_3', run: 5, attempt: 1, runs };
    expect(readNote(noteLine(note))?.runs).toEqual([{ run: 3, attempt: 1, job: 'job_3' }]);
  });

  it('keeps the docs pull requests waiting to be closed until a run deals with them, the newest few', () => {
    const links = Array.from({ length: 7 }, (_, i) => `https://github.com/acme/docs/pull/${i + 1}`);
    const first = nextNote(undefined, { job: 'job_1', run: 1, attempt: 1, superseded: links });
    expect(first.superseded).toEqual(links.slice(-SUPERSEDED_KEPT));
    expect(readNote(noteLine(first))?.superseded).toEqual(first.superseded);
    // A run that did not deal with them keeps them; one that did leaves what it still waits for.
    const kept = nextNote(first, { job: 'job_1', run: 2, attempt: 1 });
    expect(kept.superseded).toEqual(first.superseded);
    expect(nextNote(kept, { job: 'job_1', run: 3, attempt: 1, superseded: [] }).superseded).toBeUndefined();
    // A note with more than the few is no note the action wrote.
    const forged = Buffer.from(JSON.stringify({ job: 'j', run: 1, attempt: 1, superseded: links })).toString(
      'base64url',
    );
    expect(readNote(`<!-- agent-job-action:note ${forged} -->`)).toBeUndefined();
  });

  it('is written in the comment and read by the next run of the thread, whatever its prompt', async () => {
    const { pr } = world(github.gh);
    const first = sideOf(pullRun(pr.number, HEAD_1));
    const firstStarted = first.side.execute.started('job_t1', undefined, {});
    await first.side.report.finish(done('job_t1', null, { confirmed: true }), firstStarted, never());
    expect(pr.comments).toHaveLength(1);

    const second = sideOf(pullRun(pr.number, HEAD_2, { runId: 43 }), { prompt: 'Another prompt' });
    expect(await second.side.decide.recall(true, never())).toEqual({
      note: {
        job: 'job_t1',
        head: HEAD_1,
        run: 42,
        attempt: 1,
        runs: [{ run: 42, attempt: 1, job: 'job_t1' }],
        // A note of this version keeps its record of delivered requests, none yet.
        requests: { floor: 0, settled: [] },
      },
    });
    const secondStarted = second.side.execute.started('job_t1', undefined, {});
    await second.side.report.finish(done('job_t1', null, { confirmed: true }), secondStarted, never());
    expect(pr.comments).toHaveLength(1);
    expect(readNote(pr.comments[0]?.body ?? '')).toEqual({
      job: 'job_t1',
      head: HEAD_2,
      run: 43,
      attempt: 1,
      runs: [
        { run: 43, attempt: 1, job: 'job_t1' },
        { run: 42, attempt: 1, job: 'job_t1' },
      ],
      requests: { floor: 0, settled: [] },
    });
    expect(withoutWrites([...first.lines, ...second.lines])).toEqual([]);
  });

  it("is read only from the action's own comment with the marker first, never from a copy", async () => {
    const { pr } = world(github.gh);
    const first = sideOf(pullRun(pr.number, HEAD_1));
    const firstStarted = first.side.execute.started('job_mine', undefined, {});
    await first.side.report.finish(done('job_mine', null, { confirmed: true }), firstStarted, never());
    const mine = pr.comments[0]?.body ?? '';
    const forgedNote = noteLine({ job: 'job_forged', run: 1, attempt: 1 });
    const [marker = ''] = mine.split('\n');
    // Someone else's copy, first in the thread; and the bot quoting the marker.
    pr.comments.unshift(
      {
        id: 1,
        login: 'mallory',
        body: `${marker}\n${forgedNote}`,
        createdAt: AT,
        updatedAt: AT,
        reactions: [],
      },
      { id: 2, login: BOT, body: `> ${marker}\n${forgedNote}`, createdAt: AT, updatedAt: AT, reactions: [] },
    );
    const next = sideOf(pullRun(pr.number, HEAD_2));
    expect((await next.side.decide.recall(true, never())).note?.job).toBe('job_mine');
  });

  it('is one per project for matrix legs: legs on another project keep their own thread', async () => {
    const { pr } = world(github.gh);
    for (const [projectId, prompt] of [
      ['cli-docs', 'Document the CLI'],
      ['sdk-docs', 'Document the SDK'],
      ['cli-docs', 'Another prompt, same project'],
    ] as const) {
      const leg = sideOf(pullRun(pr.number, HEAD_1), { projectId, prompt, status: false });
      await leg.side.decide.recall(true, never());
      const legStarted = leg.side.execute.started(`job_${projectId}`, undefined, {});
      await leg.side.report.finish(done(`job_${projectId}`, null, { confirmed: true }), legStarted, never());
    }
    expect(pr.comments.map((c) => readNote(c.body)?.job)).toEqual(['job_cli-docs', 'job_sdk-docs']);
  });

  it("records the head a comment event read (the pull request's), so the thread's job always has a last head", async () => {
    const { pr } = world(github.gh);
    const first = sideOf(pullRun(pr.number, HEAD_1));
    const firstStarted = first.side.execute.started('job_c', undefined, {});
    await first.side.report.finish(done('job_c', null, { confirmed: true }), firstStarted, never());
    // A later push whose run has not come yet: the request reads where the pull request stands.
    pr.headSha = HEAD_2;
    const onComment = sideOf(
      runContext({
        serverUrl: github.gh.serverUrl,
        eventName: 'issue_comment',
        payload: { issue: { number: pr.number, pull_request: {} } },
      }),
      { status: false },
    );
    await onComment.side.decide.recall(true, never());
    const onCommentStarted = onComment.side.execute.started('job_c', undefined, {});
    await onComment.side.report.finish(done('job_c', null, { confirmed: true }), onCommentStarted, never());
    expect(readNote(pr.comments[0]?.body ?? '')?.head).toBe(HEAD_2);
  });
});

describe('the commit status', () => {
  it('goes pending, then success linking the docs pull request, on the pull request head', async () => {
    const { pr, docsLink } = world(github.gh);
    const HEAD_S = '5'.repeat(40);
    const { side: r, lines } = sideOf(pullRun(pr.number, HEAD_S), { comment: false, thread: false });
    const rStarted = r.execute.started('job_s', undefined, {});
    await r.report.finish(done('job_s', docsLink, { confirmed: true }), rStarted, never());
    const statuses = github.gh.statuses(APP, HEAD_S);
    expect(statuses.map((s) => [s.state, s.description, s.target_url])).toEqual([
      ['success', 'Completed: job job_s · run 42', docsLink],
      ['pending', 'Working: job job_s · run 42', `${github.gh.serverUrl}/${APP}/actions/runs/42`],
    ]);
    expect(statuses[0]?.context).toBe('docs agent: docs / refresh / docs (proj)');
    expect(withoutWrites(lines)).toEqual([]);
  });

  it.each([
    ['failed', { job: { id: 'j', status: 'failed' }, failure: 'Agent job j failed.' }, 'failure', 'Failed'],
    ['archived', { job: { id: 'j', status: 'archived' }, failure: 'x' }, 'failure', 'Archived'],
    ['timed out', { job: { id: 'j', status: 'active' }, failure: 'x', timedOut: true }, 'error', 'Timed out'],
  ])('ends as %s', async (_name, outcome, state, word) => {
    const sha = 'f'.repeat(39) + String(state.length);
    const { side: r } = sideOf(pullRun(1, sha), { comment: false, thread: false });
    const rStarted = r.execute.started('j', undefined, {});
    await r.report.finish(
      { jobId: 'j', confirmed: true, timedOut: false, waitedMs: 1, memory: {}, ...outcome },
      rStarted,
      never(),
    );
    expect(github.gh.statuses(APP, sha)[0]).toMatchObject({ state, description: `${word}: job j · run 42` });
  });

  it('ends as error when the step was cancelled', async () => {
    const sha = 'c'.repeat(40);
    const { side: r } = sideOf(pullRun(1, sha), { comment: false, thread: false });
    await r.report.finish(
      {
        jobId: 'j',
        job: { id: 'j', status: 'active' },
        confirmed: true,
        failure: 'x',
        timedOut: false,
        waitedMs: 1,
        memory: {},
      },
      undefined,
      AbortSignal.abort(),
    );
    expect(github.gh.statuses(APP, sha)[0]).toMatchObject({
      state: 'error',
      description: 'Cancelled: job j · run 42',
    });
  });

  it('leaves a job id out when it is too long for 140 characters, and says a re-run cannot resume from it', async () => {
    const sha = 'd'.repeat(40);
    const long = `job_${'x'.repeat(140)}`;
    const { side: r, lines } = sideOf(pullRun(1, sha), { comment: false, thread: false });
    const rStarted = r.execute.started(long, undefined, {});
    await r.report.finish(done(long, null, { confirmed: true }), rStarted, never());
    expect(github.gh.statuses(APP, sha).map((s) => s.description)).toEqual([
      'Completed, no changes: job id too long to show · run 42',
      'Working: job id too long to show · run 42',
    ]);
    expect(withoutWrites(lines)).toEqual([
      "warning: The job id is too long for a commit status's 140 characters: the status leaves it out, so a re-run cannot resume from the status.",
    ]);
    expect(readStatusNote(github.gh.statuses(APP, sha)[0]?.description ?? null)).toEqual({ run: 42 });
  });

  it('goes on the head of the pull request a comment is on, read from GitHub; not on an issue', async () => {
    const { pr } = world(github.gh);
    const head = github.gh.get(APP, pr.number).headSha;
    const onComment = runContext({
      serverUrl: github.gh.serverUrl,
      eventName: 'issue_comment',
      payload: { issue: { number: pr.number, pull_request: {} } },
    });
    const { side: r } = sideOf(onComment, { comment: false, thread: false });
    const rStarted = r.execute.started('job_h', undefined, {});
    await r.report.finish(done('job_h', null, { confirmed: true }), rStarted, never());
    expect(github.gh.statuses(APP, head).map((s) => s.state)).toEqual(['success', 'pending']);

    const issue = github.gh.thread(APP, { pull: false });
    const onIssue = runContext({
      serverUrl: github.gh.serverUrl,
      eventName: 'issues',
      payload: { issue: { number: issue.number } },
    });
    const { side: r2, lines } = sideOf(onIssue, { comment: false, thread: false });
    const r2Started = r2.execute.started('job_i', undefined, {});
    await r2.report.finish(done('job_i', null, { confirmed: true }), r2Started, never());
    expect(withoutWrites(lines)).toEqual([
      `notice: No commit status: #${issue.number} is an issue, which has no commit.`,
    ]);
  });

  it("is what a re-run reads to resume, and the branch's next push to follow up", async () => {
    world(github.gh);
    const before = 'b'.repeat(40);
    const after = 'e'.repeat(40);
    const first = sideOf(pushRun(before, '0'.repeat(40), 50), { comment: false });
    const firstStarted = first.side.execute.started('job_branch', undefined, {});
    await first.side.report.finish(done('job_branch', null, { confirmed: true }), firstStarted, never());

    const retry = sideOf(pushRun(before, '0'.repeat(40), 50, 2), { comment: false });
    expect(await retry.side.decide.recall(true, never())).toEqual({
      status: { job: 'job_branch', run: 50, ended: true },
    });
    const next = sideOf(pushRun(after, before, 51), { comment: false });
    expect(await next.side.decide.recall(true, never())).toEqual({
      branch: { job: 'job_branch', run: 50, since: before },
    });
    github.gh.forget(APP, before);
    expect(
      await sideOf(pushRun(after, before, 52), { comment: false }).side.decide.recall(true, never()),
    ).toEqual({});
  });

  it("with budget on a branch pushed to directly, carries the count of its job's uses, which the next push reads back", async () => {
    const { pr } = world(github.gh);
    const before = 'a'.repeat(40);
    const at = (n: number) => 'a'.repeat(38) + String(n);
    const after = at(91);
    const budget = { budget: 2 };
    const first = sideOf(pushRun(before, '0'.repeat(40), 90), budget);
    const firstStarted = first.side.execute.started('job_b', undefined, {}, 1);
    await first.side.report.finish(done('job_b', null, { confirmed: true, uses: 1 }), firstStarted, never());
    expect(github.gh.statuses(APP, before).map((s) => s.description)).toEqual([
      'Completed, no changes: job job_b · run 90 · 1 use',
      'Working: job job_b · run 90 · 1 use',
    ]);
    const memory = await sideOf(pushRun(after, before, 91), budget).side.decide.recall(true, never());
    expect(memory.branch).toStrictEqual({ job: 'job_b', run: 90, since: before, uses: 1 });

    // A follow-up adds its use; a skip carries the count on; a new job starts again.
    const described = async (jobId: string, uses: number, memory: Memory, runId: number) => {
      const sha = at(runId);
      const { side } = sideOf(pushRun(sha, before, runId), budget);
      await side.report.finish(done(jobId, null, { confirmed: true, uses, memory }), undefined, never());
      return github.gh.statuses(APP, sha)[0]?.description;
    };
    expect(await described('job_b', 1, memory, 92)).toBe(
      'Completed, no changes: job job_b · run 92 · 2 uses',
    );
    expect(await described('job_c', 1, memory, 93)).toBe('Completed, no changes: job job_c · run 93 · 1 use');
    const skip = sideOf(pushRun(after, before, 94), budget);
    await skip.side.report.skipped('Nothing new', 'job_b', never(), memory);
    expect(github.gh.statuses(APP, after)[0]?.description).toBe('Nothing new: job job_b · run 94 · 1 use');
    // A re-run that resumes its earlier attempt's job keeps that attempt's count.
    const resumed = { ...memory, status: { job: 'job_c', run: 95, uses: 1 } };
    expect(await described('job_c', 0, resumed, 95)).toBe(
      'Completed, no changes: job job_c · run 95 · 1 use',
    );
    // A count not known stays unknown on a run that spent nothing, and starts from a send.
    const unknown = { branch: { job: 'job_b', run: 90, since: before } };
    expect(await described('job_b', 0, unknown, 96)).toBe('Completed, no changes: job job_b · run 96');
    expect(await described('job_b', 1, unknown, 97)).toBe(
      'Completed, no changes: job job_b · run 97 · 1 use',
    );

    // Without budget, and on a pull request (whose note keeps the total), no count.
    expect(
      await (async () => {
        const { side } = sideOf(pushRun(at(98), before, 98));
        await side.report.finish(
          done('job_b', null, { confirmed: true, uses: 1, memory }),
          undefined,
          never(),
        );
        return github.gh.statuses(APP, at(98))[0]?.description;
      })(),
    ).toBe('Completed, no changes: job job_b · run 98');
    const onPull = sideOf(pullRun(pr.number, at(99), { runId: 99 }), budget);
    await onPull.side.report.finish(
      done('job_b', null, { confirmed: true, uses: 1, memory }),
      undefined,
      never(),
    );
    expect(github.gh.statuses(APP, at(99))[0]?.description).toBe('Completed, no changes: job job_b · run 99');
  });

  it("counts only statuses the token's own identity wrote: another writer of the context steers nothing", async () => {
    world(github.gh);
    const before = '7'.repeat(40);
    const after = '8'.repeat(40);
    const first = sideOf(pushRun(before, '0'.repeat(40), 60), { comment: false });
    const firstStarted = first.side.execute.started('job_own', undefined, {});
    await first.side.report.finish(done('job_own', null, { confirmed: true }), firstStarted, never());
    const context = github.gh.statuses(APP, before)[0]?.context ?? '';
    // Another app writes the step's context, naming a job of its choice, for the same run.
    github.gh.addStatus(APP, before, {
      creator: 'mallory-app[bot]',
      context,
      description: 'Completed: job job_stranger · run 60',
    });
    const retry = sideOf(pushRun(before, '0'.repeat(40), 60, 2), { comment: false });
    expect(await retry.side.decide.recall(true, never())).toEqual({
      status: { job: 'job_own', run: 60, ended: true },
    });
    const next = sideOf(pushRun(after, before, 61), { comment: false });
    expect(await next.side.decide.recall(true, never())).toEqual({
      branch: { job: 'job_own', run: 60, since: before },
    });

    // With no status of its own there, the stranger's is no status at all.
    const other = '6'.repeat(40);
    github.gh.addStatus(APP, other, {
      creator: 'mallory-app[bot]',
      context,
      description: 'Working: job job_stranger · run 62',
    });
    expect(
      await sideOf(pushRun(other, '0'.repeat(40), 62, 2), { comment: false }).side.decide.recall(
        true,
        never(),
      ),
    ).toEqual({});
    expect(
      await sideOf(pushRun(after, other, 63), { comment: false }).side.decide.recall(true, never()),
    ).toEqual({});
  });

  it('finds its own status under 350 newer ones, on every page', async () => {
    world(github.gh);
    const sha = '4'.repeat(40);
    const first = sideOf(pullRun(1, sha, { runId: 70 }), { comment: false, thread: false });
    const firstStarted = first.side.execute.started('job_buried', undefined, {});
    await first.side.report.finish(done('job_buried', null, { confirmed: true }), firstStarted, never());
    for (let i = 0; i < 350; i++) {
      github.gh.addStatus(APP, sha, {
        creator: i % 2 ? 'ci-app[bot]' : BOT,
        context: `ci/check-${i}`,
        description: `check ${i}`,
      });
    }
    const retry = sideOf(pullRun(1, sha, { runId: 70, runAttempt: 2 }), { comment: false, thread: false });
    expect(await retry.side.decide.recall(true, never())).toEqual({
      status: { job: 'job_buried', run: 70, ended: true },
    });
    expect(github.gh.requests.filter((q) => q.route === 'listStatuses').length).toBeGreaterThanOrEqual(4);
  });

  it.each(['.', '..'])(
    'ignores, with a warning, a job id %j read back from a status or a note: it would be a dot segment of a path',
    async (id) => {
      const { pr } = world(github.gh);
      const sha = id === '.' ? '3'.repeat(40) : '2'.repeat(39) + 'a';
      const first = sideOf(pullRun(pr.number, sha, { runId: 80 }), { thread: false });
      const firstStarted = first.side.execute.started('job_x', undefined, {});
      await first.side.report.finish(done('job_x', null, { confirmed: true }), firstStarted, never());
      // The action's own identity wrote these (a workflow that echoes outside text could).
      const context = github.gh.statuses(APP, sha)[0]?.context ?? '';
      github.gh.addStatus(APP, sha, { creator: BOT, context, description: `Working: job ${id} · run 80` });
      const [marker = ''] = (pr.comments[0]?.body ?? '').split('\n');
      const forged = { id: 3, login: BOT, body: `${marker}\n${noteLine({ job: id, run: 80, attempt: 1 })}` };
      pr.comments.unshift({ ...forged, createdAt: AT, updatedAt: AT, reactions: [] });
      const retry = sideOf(pullRun(pr.number, sha, { runId: 80, runAttempt: 2 }), { thread: false });
      expect(await retry.side.decide.recall(true, never())).toEqual({});
      expect(withoutWrites(retry.lines)).toEqual([
        `warning: Ignored the job named in the kept comment: "${id}" is not a job id the service gives.`,
        `warning: Ignored the job named in the commit status: "${id}" is not a job id the service gives.`,
      ]);
    },
  );

  it.each(
    ['\u202e', '\u200b', '\u061c', '\u200e', '\u200f', '\u2060', '\ufeff', '\u2067'].map((ch) => [
      `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
      ch,
    ]),
  )('never writes %s from a job id into a description', async (_name, ch) => {
    const sha = `9${ch.charCodeAt(0).toString(16)}`.padEnd(40, '9');
    const id = `job_${ch}evil`;
    const { side: r, lines } = sideOf(pullRun(1, sha), { comment: false, thread: false });
    const rStarted = r.execute.started(id, undefined, {});
    await r.report.finish(done(id, null, { confirmed: true }), rStarted, never());
    const descriptions = github.gh.statuses(APP, sha).map((s) => s.description);
    expect(descriptions).toEqual([
      'Completed, no changes: job id not shown · run 42',
      'Working: job id not shown · run 42',
    ]);
    expect(withoutWrites(lines)).toEqual([
      'warning: The job id holds characters a commit status must not show: the status leaves it out, so a re-run cannot resume from the status.',
    ]);
  });

  it('links the docs pull request on success only when prLink is a pull request', async () => {
    const sha = 'a'.repeat(39) + 'b';
    const { side: r } = sideOf(pullRun(1, sha), { comment: false, thread: false });
    const rStarted = r.execute.started('job_l', undefined, {});
    await r.report.finish(
      done('job_l', 'https://evil.example/login', { confirmed: true }),
      rStarted,
      never(),
    );
    expect(github.gh.statuses(APP, sha)[0]).toMatchObject({
      state: 'success',
      target_url: `${github.gh.serverUrl}/${APP}/actions/runs/42`,
    });
  });

  it('is named by the workflow and job, and by the step only where the workflow gave it an id', () => {
    const key = { baseUrl: 'https://api.example.com', projectId: 'proj' };
    const own = { actionRepository: 'acme/docs-agent-action' };
    const named = (action: string, extra: Partial<RunContext> = {}) =>
      statusContext(runContext({ workflow: 'Docs', job: 'docs', action, ...own, ...extra }), key);
    expect(named('refresh')).toBe('docs agent: Docs / docs / refresh (proj)');
    expect(named('__acme_docs-agent-action')).toBe('docs agent: Docs / docs (proj)');
    // A second unnamed step of the same action, and legs of a matrix on other projects, stay apart.
    expect(named('__acme_docs-agent-action_2')).toBe('docs agent: Docs / docs #2 (proj)');
    expect(
      statusContext(
        runContext({ workflow: 'Docs', job: 'docs', action: '__acme_docs-agent-action', ...own }),
        {
          ...key,
          projectId: 'sdk',
        },
      ),
    ).toBe('docs agent: Docs / docs (sdk)');
    const long = named('__x', { workflow: 'W'.repeat(120) });
    expect(long.length).toBeLessThanOrEqual(100);
  });

  it('is never the same for two steps, whatever GitHub named them', () => {
    const key = { baseUrl: 'https://api.example.com', projectId: 'proj' };
    const context = (action: string, actionRepository: string, extra: Partial<RunContext> = {}) =>
      statusContext(runContext({ workflow: 'Docs', job: 'docs', action, actionRepository, ...extra }), key);
    // `__acme_x_2` is the second unnamed step of acme/x, or the first of acme/x_2.
    const steps = [
      context('__acme_x', 'acme/x'),
      context('__acme_x_2', 'acme/x'),
      context('__acme_x_2_2', 'acme/x'),
      context('__acme_x_2', 'acme/x_2'),
      context('__acme_x_2_2', 'acme/x_2'),
      context('__acme_x_02', 'acme/x'),
      context('__self', ''),
      context('__self_2', ''),
      context('__run', 'acme/x'),
      context('x', 'acme/x'),
      context('x_2', 'acme/x'),
    ];
    // The same step reads the same context from run to run; two names, two contexts.
    const names = new Map<string, string>();
    for (const [action, repository] of [
      ['__acme_x', 'acme/x'],
      ['__acme_x_2', 'acme/x'],
      ['__acme_x_2_2', 'acme/x'],
      ['__acme_x_02', 'acme/x'],
      ['__self', ''],
      ['__self_2', ''],
      ['__run', 'acme/x'],
      ['x', 'acme/x'],
      ['x_2', 'acme/x'],
    ] as const) {
      names.set(context(action, repository), action);
    }
    expect(names.size).toBe(9);
    expect(steps[3]).toBe('docs agent: Docs / docs (proj)');
    expect(steps[4]).toBe('docs agent: Docs / docs #2 (proj)');
    expect(new Set([steps[1], steps[2]]).size).toBe(2);
    expect(steps[2]).toMatch(/^docs agent: Docs \/ docs #2 \(proj\) [0-9a-f]{8}$/);
    expect(context('__acme_x_2_2', 'acme/x')).toBe(steps[2]);
    // A workflow name holding ` / ` could read as another workflow's job and step.
    const slashed = context('__acme_x', 'acme/x', { workflow: 'A / b', job: 'c' });
    const split = context('c', 'acme/x', { workflow: 'A', job: 'b' });
    expect(split).toBe('docs agent: A / b / c (proj)');
    expect(slashed).not.toBe(split);
    expect(slashed).toMatch(/^docs agent: A \/ b \/ c \(proj\) [0-9a-f]{8}$/);
  });

  it('shows the workflow and job names filtered, and cuts at a character', () => {
    const key = { baseUrl: 'https://api.example.com', projectId: 'proj' };
    const context = (workflow: string, job = 'docs') =>
      statusContext(runContext({ workflow, job, action: 'refresh' }), key);
    const bidi = context('Docs\u202e\u200bgnp.exe\n::warning::x');
    expect(bidi).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(bidi).toMatch(/^docs agent: Docs gnp\.exe ::warning::x \/ docs \/ refresh \(proj\) [0-9a-f]{8}$/);
    // Filtering never merges two names into one context.
    expect(context('Docs\u200b')).not.toBe(context('Docs'));
    expect(context('Docs', 'do\u202ecs')).not.toBe(context('Docs', 'docs'));
    // An emoji (a surrogate pair) at the cut is kept whole or left out, never halved.
    for (let pad = 80; pad < 95; pad++) {
      const cut = context(`${'W'.repeat(pad)}${'📚'.repeat(10)}`);
      expect(cut.length).toBeLessThanOrEqual(100);
      expect(cut).toMatch(/… [0-9a-f]{8}$/);
      expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
    }
  });

  it('reads descriptions it wrote, and only those', () => {
    expect(readStatusNote(statusDescription('Working', 'job_1', 9).text)).toEqual({ job: 'job_1', run: 9 });
    expect(readStatusNote('Build passed')).toBeUndefined();
    expect(readStatusNote(null)).toBeUndefined();
  });

  it("carries a branch's count of its job's uses, read one way only; a form without it has none", () => {
    expect(statusDescription('Working', 'job_1', 9, 3).text).toBe('Working: job job_1 · run 9 · 3 uses');
    expect(statusDescription('Working', 'job_1', 9, 1).text).toBe('Working: job job_1 · run 9 · 1 use');
    expect(readStatusNote('Working: job job_1 · run 9 · 3 uses')).toStrictEqual({
      job: 'job_1',
      run: 9,
      uses: 3,
    });
    expect(readStatusNote('Working: job job_1 · run 9 · 1 use')).toStrictEqual({
      job: 'job_1',
      run: 9,
      uses: 1,
    });
    expect(
      readStatusNote('Budget of 2 quota uses spent (raise budget to go on): job j · run 7 · 0 uses'),
    ).toStrictEqual({ job: 'j', run: 7, uses: 0, held: true });
    // A skip names the thread's job but started none: a re-run of it resumes nothing.
    expect(readStatusNote('Docs follow at the merge: job j · run 7')).toStrictEqual({
      job: 'j',
      run: 7,
      held: true,
    });
    expect(readStatusNote('Working: job j · run 7')).toStrictEqual({ job: 'j', run: 7 });
    // The forms written before counts were kept read as they always did, with no count.
    expect(readStatusNote('Completed: job job_1 · run 9')).toStrictEqual({
      job: 'job_1',
      run: 9,
      linked: true,
      ended: true,
    });
    expect(readStatusNote('Stopped before any job · run 5')).toStrictEqual({ run: 5 });
    // A follow-up the service did not confirm names the thread's job, but no run takes it from there.
    const unconfirmed = unconfirmedFollowUp('job_1', 5, false);
    expect(unconfirmed).toBe('Stopped: follow-up to job job_1 not confirmed; a re-run sends it again');
    expect(readStatusNote(`${unconfirmed} · run 5`)).toStrictEqual({ run: 5 });
    expect(unconfirmedFollowUp(`job_${'x'.repeat(100)}`, 5, true)).toBe(
      'Cancelled: follow-up to the thread’s job not confirmed; a re-run sends it again',
    );
    expect(readStatusNote('Working: job id too long to show · run 42')).toStrictEqual({ run: 42 });
    // A count never stands without the job it counts.
    expect(readStatusNote('Stopped before any job · run 5 · 2 uses')).toBeUndefined();
    // Where the count does not fit beside the job id, the count gives way, never the id.
    const id = `job_${'x'.repeat(100)}`;
    expect(statusDescription('Working', id, 123456789, 12)).toEqual({
      text: `Working: job ${id} · run 123456789`,
      fits: true,
    });
    expect(statusDescription('Working', `${id}${'x'.repeat(20)}`, 9, 12)).toMatchObject({
      text: 'Working: job id too long to show · run 9',
      fits: false,
    });
  });
});

describe('the docs pull request', () => {
  it('is open, merged or closed as GitHub says, read with docsToken; elsewhere when not on this GitHub', async () => {
    const { docsPr, docsLink } = world(github.gh);
    const { side: r, lines } = sideOf(pullRun(1, HEAD_1));
    expect(await r.decide.docsPull(docsLink, never())).toEqual({
      state: 'open',
      number: docsPr.number,
      repo: DOCS,
    });
    docsPr.state = 'closed';
    expect(await r.decide.docsPull(docsLink, never())).toMatchObject({ state: 'closed' });
    docsPr.merged = true;
    expect(await r.decide.docsPull(docsLink, never())).toMatchObject({ state: 'merged' });
    expect(github.gh.requests.filter((q) => q.route === 'getPull').at(-1)?.token).toBe(DOCS_TOKEN);
    expect(await r.decide.docsPull('https://gitlab.com/a/b/-/merge_requests/1', never())).toEqual({
      state: 'elsewhere',
    });
    expect(withoutWrites(lines)).toEqual([]);
  });

  it('that no token can read ends the step with the token and permission to give, never a new job', async () => {
    world(github.gh);
    const { side: r } = sideOf(pullRun(1, HEAD_1));
    await expect(r.decide.docsPull(`${github.gh.serverUrl}/acme/private/pull/1`, never())).rejects.toThrow(
      /^Could not read the docs pull request acme\/private#1, which the thread's job opened \(404 "Not Found"\): .* Nothing was sent: .* Give docsToken pull-requests: read on acme\/private, then re-run\.$/,
    );
  });

  it('is read again after a passing fault: one 502 decides nothing', async () => {
    const { docsLink } = world(github.gh);
    const clock = new ManualClock();
    const { side: r, lines } = sideOf(pullRun(1, HEAD_1), {}, clock);
    github.gh.fail('getPull', { status: 502, message: 'Bad Gateway' });
    const reads = github.gh.count('getPull');
    const pending = r.decide.docsPull(docsLink, never());
    // The retry waits a second on the run's clock, moved once the fault is answered and said.
    while (lines.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(github.gh.count('getPull')).toBe(reads + 1);
    await clock.advance(1000);
    expect(await pending).toMatchObject({ state: 'open' });
    expect(withoutWrites(lines)).toEqual([
      'info: A read from GitHub met a passing fault (GitHub answered 502); trying again in 1s.',
    ]);
    expect(DOCS).toBe('acme/docs');
  });
});

describe("a follow-up's context", () => {
  it('is what changed since the head the job last saw; the whole pull request when GitHub cannot compare', async () => {
    const { pr } = world(github.gh);
    github.gh.commit(APP, { sha: HEAD_2, message: 'Add the --dry-run flag', files: [] });
    github.gh.comparison(APP, `${HEAD_1}...${HEAD_2}`, {
      commits: [HEAD_2],
      files: [
        { filename: 'src/cli.ts', status: 'modified', additions: 3, deletions: 1, patch: '@@ -1 +1 @@' },
      ],
    });
    const { side: r } = sideOf(pullRun(pr.number, HEAD_2));
    const since = await r.decide.context(HEAD_1, 20_000, never());
    expect(since).toContain('what changed since the docs job last saw it (1111111…2222222)');
    expect(since).toContain('src/cli.ts');
    expect(since).toContain('Add the --dry-run flag');
    const { side: forced } = sideOf(pullRun(pr.number, HEAD_2));
    const whole = await forced.decide.context(undefined, 20_000, never());
    const fallback = await forced.decide.context('9'.repeat(40), 20_000, never());
    expect(fallback).toContain('GitHub could not compare with the commit the docs job last saw');
    expect(whole).not.toContain('GitHub could not compare');
  });
});
