// A report run (`sweep: true`), played with run() in this process against both emulators: after a
// thread's run left its job at work without waiting, a run on a schedule, a dispatch or the docs
// pull request's own event writes the job's end on that thread — its comment, its pending status
// on its own commit and context, the docs PR's labels, the thread's label off — once, and nothing
// while the job still works. It sends nothing to the service: a thread owed something, or whose job
// is overdue, goes to the thread's lane (a workflow_dispatch naming the thread), whose run writes
// the end and sends what is owed; only where GitHub refuses that does the report run write it.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import {
  docsThread,
  emulators,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  runHere as play,
  serviceTimeOnly,
  warnings,
} from '../__fixtures__/e2e.js';
import type { RunDeps } from '../src/main.js';
import {
  APP,
  changedFile,
  commentEvent,
  DOCS,
  DOCS_TOKEN,
  gitHubEnv,
  pullRequestAt,
  pushEvent,
  pushTo,
  reviewCommentEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';
import { readNote } from '../src/github/note.js';
import type { Emulator } from '../emulators/server.js';
import type { GitHubEmulator } from '../emulators/github.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const T0 = 1_700_000_000_000;
const at = (ms = 0): RunDeps => ({ ...serviceTimeOnly(), clock: new VirtualClock(T0 + ms) });

const SCHEDULE = { name: 'schedule', payload: { schedule: '17 * * * *' } };

/** The report run's step, as the recipe writes it: no prompt. */
function sweepStep(
  service: Emulator,
  gh: GitHubEmulator,
  event: { name: string; payload: unknown } = SCHEDULE,
) {
  const inputs = inputsFor(service, { sweep: 'true', docsToken: DOCS_TOKEN });
  delete inputs.prompt;
  return { inputs, env: gitHubEnv(gh), event };
}

/** What GitHub was asked to change: every request but a read (a GET, or a GraphQL query). */
const writes = (gh: GitHubEmulator) =>
  gh.requests.filter((r) => r.method !== 'GET' && !JSON.stringify(r.json ?? '').includes('"query {'));

/** The dispatch a report run starts for thread `number`: the thread's lane run. */
const laneEvent = (number: number) => ({
  name: 'workflow_dispatch',
  payload: { inputs: { 'docs-agent-thread': String(number) } },
});

/** The dispatch GitHub accepted for thread `number`'s lane. */
const laneDispatch = (number: number) => ({
  workflowId: 'docs.yml',
  ref: 'refs/heads/main',
  inputs: { 'docs-agent-thread': String(number) },
});

/** Pull request `pr` merged at `head`: its `closed` event, `merged`. */
function mergedAt(pr: { number: number; merged?: boolean; state?: string }, head: string) {
  pr.merged = true;
  pr.state = 'closed';
  const closed = pullRequestAt(pr.number, head, 'closed');
  return {
    ...closed,
    payload: { ...closed.payload, pull_request: { ...closed.payload.pull_request, merged: true } },
  };
}

/** A thread whose opening run did not wait: its job read `active` once, then as the test scripts. */
async function leftAtWork(options: { timeout?: string } = {}) {
  const world = await docsThread(github, emulator);
  const { pr, step, service, gh } = world;
  // The recipe's workflow, which a report run dispatches for a thread's lane.
  gh.workflow(APP, 'docs.yml', { inputs: ['docs-agent-thread'] });
  service.script('get', { job: { status: 'active' } });
  const opening = await play(
    step(pushTo(pr, sha(2), 'opened'), { wait: 'false', labels: 'docs', ...options }),
    at(),
  );
  service.unscript('get');
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { ...world, opening, kept };
}

/**
 * A report run at `ms` (a separate `sweep: true` step), which hands thread `pr` to its lane, and the
 * lane's run — the thread's own step — a minute later.
 */
async function reportAndLane(thread: Awaited<ReturnType<typeof leftAtWork>>, ms: number) {
  const { gh, pr, service, step } = thread;
  const dispatched = gh.dispatches(APP).length;
  const swept = await play(sweepStep(service, gh), at(ms));
  expect(swept.code).toBe(0);
  expect(gh.dispatches(APP).slice(dispatched)).toEqual([laneDispatch(pr.number)]);
  const lane = await play(step(laneEvent(pr.number), { wait: 'false' }), at(ms + 60_000));
  expect(lane.code).toBe(0);
  return { swept, lane };
}

describe('sweep: true', () => {
  it("on a dispatch (the docs repository's) writes an ended job's end on its thread, once; the next, scheduled, writes nothing", async () => {
    const { gh, pr, docsPr, docsLink, service, opening, kept } = await leftAtWork();
    expect(pr.labels).toEqual(['docs-agent-working']);
    const [pending] = gh.statuses(APP, sha(2));

    const dispatched = { name: 'workflow_dispatch', payload: { inputs: {} } };
    const swept = await play(sweepStep(service, gh, dispatched), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(swept.outputs).toMatchObject({ mode: 'swept', status: 'swept', uses: '0' });
    expect(JSON.parse(swept.outputs.reported ?? '')).toEqual([
      { thread: pr.number, jobId: opening.outputs.jobId, status: 'completed', prLink: docsLink },
    ]);
    expect(swept.summary).toContain('Documentation agent: report run');
    expect(kept()).toContain('✅ **Completed**');
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      context: pending?.context,
      target_url: docsLink,
    });
    expect(docsPr.labels).toEqual(['docs']);
    expect(pr.labels).toEqual([]);
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);

    const before = { gh: writes(gh).length, get: service.count('get') };
    const again = await play(sweepStep(service, gh), at(20 * 60_000));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.outputs.reported ?? '')).toEqual([]);
    expect(again.stdout).toContain('No thread of this repository is waiting');
    expect(writes(gh).slice(before.gh)).toEqual([]);
    expect(service.count('get')).toBe(before.get);
  });

  it('leaves a job still at work waiting, and writes nothing', async () => {
    const { gh, pr, service, kept } = await leftAtWork({ timeout: '1h' });
    service.script('get', { job: { status: 'active' } });
    const before = writes(gh).length;
    const swept = await play(sweepStep(service, gh, { name: 'workflow_dispatch', payload: {} }), at(60_000));
    expect(swept.code).toBe(0);
    expect(swept.stdout).toContain('is still at work; it stays waiting.');
    expect(JSON.parse(swept.outputs.reported ?? '')).toEqual([]);
    expect(writes(gh).length).toBe(before);
    expect(readNote(kept())?.waiting).toBeDefined();
    expect(pr.labels).toEqual(['docs-agent-working']);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'pending' });
  });

  it('reports a job the service no longer knows, and one past its timeout, as errors', async () => {
    const lost = await leftAtWork();
    lost.service.script('get', { status: 404, json: { error: 'Job not found' } });
    const swept = await play(sweepStep(lost.service, lost.gh), at(60_000));
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([{ status: 'lost', prLink: '' }]);
    expect(lost.gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('No longer known to the service'),
    });
    expect(lost.pr.labels).toEqual([]);
  });

  it('past its timeout: the thread is told once, keeps waiting, and the real end replaces the mark', async () => {
    const thread = await leftAtWork({ timeout: '1h' });
    const { gh, pr, service, kept, docsLink } = thread;
    // Read by the report run, the lane's run it starts (an overdue job's record takes requests
    // meanwhile: the lane writes the mark), and the next report run.
    const active = { job: { status: 'active' } };
    service.script('get', active, active, active);
    const marked = await reportAndLane(thread, 2 * 60 * 60_000);
    expect(JSON.parse(marked.swept.outputs.reported ?? '')).toEqual([]);
    expect(JSON.parse(marked.lane.outputs.reported ?? '')).toMatchObject([{ status: 'timed-out' }]);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('Timed out'),
    });
    expect(readNote(kept())?.waiting).toMatchObject({ overdue: true });
    expect(pr.labels).toEqual(['docs-agent-working']);
    // Marked once: the next report run, the job still at work, writes nothing and hands nothing off.
    const before = writes(gh).length;
    const again = await play(sweepStep(service, gh), at(3 * 60 * 60_000));
    expect(JSON.parse(again.outputs.reported ?? '')).toEqual([]);
    expect(writes(gh).slice(before)).toEqual([]);
    // The job ends after all: its end replaces the mark.
    service.unscript('get');
    const ended = await play(sweepStep(service, gh), at(4 * 60 * 60_000));
    expect(JSON.parse(ended.outputs.reported ?? '')).toMatchObject([{ status: 'completed' }]);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'success', target_url: docsLink });
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });

  it("on the docs pull request's own event (a monorepo), reads the job once and never waits for a pass", async () => {
    const { gh, pr, service, kept } = await leftAtWork({ timeout: '1h' });
    // The agent opened its docs pull request in the run's own repository, and is finishing.
    const docsHere = gh.thread(APP, { opener: 'docs-service[bot]' });
    const link = `${gh.serverUrl}/${APP}/pull/${docsHere.number}`;
    service.script('get', { job: { status: 'active', prLink: link } });
    const reads = service.count('get');
    const opened = { name: 'pull_request', payload: pullRequestOpened(docsHere.number) };
    const swept = await play(sweepStep(service, gh, opened), at(60_000));
    expect(swept.code).toBe(0);
    expect(service.count('get')).toBe(reads + 1);
    expect(JSON.parse(swept.outputs.reported ?? '')).toEqual([]);
    expect(readNote(kept())?.waiting).toBeDefined();
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'pending' });
    expect(pr.labels).toEqual(['docs-agent-working']);
  });

  it("a report step of another project (two docs projects in one repository) reads, ends and hands off nothing of this one's", async () => {
    const { gh, pr, service, kept } = await leftAtWork();
    service.script('get', { status: 404, json: { error: 'Job not found' } });
    const reads = service.count('get');
    const before = writes(gh).length;
    const step = sweepStep(service, gh);
    const other = await play({ ...step, inputs: { ...step.inputs, projectId: 'proj_other' } }, at(60_000));
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('No thread of this repository is waiting');
    expect(service.count('get')).toBe(reads);
    expect(writes(gh).slice(before)).toEqual([]);
    expect(readNote(kept())?.waiting).toBeDefined();
    expect(pr.labels).toEqual(['docs-agent-working']);
  });

  it('needs no prompt; with jobId it is a bad input, and nothing is sent', async () => {
    const gh = await github();
    const service = await emulator();
    const step = sweepStep(service, gh);
    const result = await play({ ...step, inputs: { ...step.inputs, jobId: 'job_1' } }, at());
    expectFailure(result, 'Input "jobId" and input "sweep" are both set');
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

describe('requests while the job works (wait: false)', () => {
  /** A thread left at work, and five `/docs` requests on it while the job works, each its own run. */
  async function burst() {
    const world = await leftAtWork({ timeout: '1h' });
    const { gh, pr, service, step } = world;
    gh.collaborator(APP, 'mona', 'write');
    const asked = ['the FAQ', 'the changelog', 'the README table', 'the upgrade guide', 'the CLI page'].map(
      (text, i) =>
        gh.addComment(APP, pr.number, { login: i % 2 ? 'mona' : 'octocat', body: `/docs ${text}` }),
    );
    const runs = [];
    for (const [i, comment] of asked.entries()) {
      service.script('get', { job: { status: 'active' } });
      const event = commentEvent(pr.number, comment.body, { id: comment.id, login: comment.login });
      runs.push(await play(step(event, { wait: 'false' }, { GITHUB_RUN_ID: String(300 + i) }), at(60_000)));
      service.unscript('get');
    }
    return { ...world, asked, runs };
  }

  it('each is queued, not sent: it ends skipped and is answered on the thread, with no 👀 yet', async () => {
    const { pr, service, asked, runs, kept } = await burst();
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(warnings(run)).toEqual([]);
      expect(run.outputs).toMatchObject({ status: 'skipped', uses: '0' });
      expect(run.stdout).toContain('this request is sent when it is done');
    }
    expect(service.count('message')).toBe(0);
    expect(kept()).toContain('Queued: the agent is still at work on job');
    expect(readNote(kept())?.waiting?.queued).toEqual(asked.map((c) => c.id));
    expect(asked.flatMap((c) => c.reactions)).toEqual([]);
    expect(pr.labels).toEqual(['docs-agent-working']);
  });

  it('a dry run reads the job a run left at work as the real run would, and writes nothing: at work, its request would be queued; ended, followed up', async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    const before = writes(gh).length;
    const body = kept();
    const comment = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs the FAQ' });
    const asked = commentEvent(pr.number, comment.body, { id: comment.id, login: comment.login });
    const dryRun = { wait: 'false', dryRun: 'true' };
    service.script('get', { job: { status: 'active' } });
    const atWork = await play(step(asked, dryRun), at(60_000));
    service.unscript('get');
    expect(atWork.code).toBe(0);
    expect(atWork.outputs).toMatchObject({ status: 'dry-run', mode: 'skipped' });
    expect(atWork.stdout).toContain('Queued: agent job');
    const ended = await play(step(asked, dryRun), at(120_000));
    expect(ended.outputs).toMatchObject({ status: 'dry-run', mode: 'followed-up' });
    expect(ended.stdout).toContain('its end is not written, and the run decides as if it were');
    expect(writes(gh).slice(before)).toEqual([]);
    expect(kept()).toBe(body);
    expect(service.count('message')).toBe(0);
  });

  it('a triggerLabel while the job works is not sent, and the notice says to apply it again once the job is done', async () => {
    const { gh, pr, service, step } = await leftAtWork({ timeout: '1h' });
    pr.labels.push('docs');
    const event = pushTo(pr, sha(2), 'labeled');
    service.script('get', { job: { status: 'active' } });
    const labelled = await play(
      step(
        { ...event, payload: { ...event.payload, label: { name: 'docs' } } },
        { wait: 'false', triggerLabel: 'docs' },
      ),
      at(60_000),
    );
    service.unscript('get');
    expect(labelled.code).toBe(0);
    expect(labelled.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(labelled.stdout).toContain('apply the label docs again once it is done');
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      description: expect.stringContaining('Not sent: the agent is at work'),
    });
    expect(service.count('message')).toBe(0);
    expect(pr.labels).not.toContain('docs');
  });

  it('a review comment while the job works is not queued (nothing keeps it): it says so, and nothing is owed', async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    const review = gh.addReviewComment(APP, pr.number, { login: 'octocat', body: '/docs the flag' });
    service.script('get', { job: { status: 'active' } });
    const asked = await play(
      step(reviewCommentEvent(gh.serverUrl, pr.number, review, sha(2)), { wait: 'false' }),
      at(60_000),
    );
    service.unscript('get');
    expect(asked.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(asked.stdout).toContain('a review comment cannot be queued');
    expect(kept()).toContain('a review comment cannot be queued');
    expect(readNote(kept())?.waiting?.queued).toBeUndefined();
    expect(service.count('message')).toBe(0);
  });

  it("the thread's next run reports the end and sends all five in one follow-up, each with its 👀", async () => {
    const { pr, service, asked, step, kept } = await burst();
    const next = await play(step(pushTo(pr, sha(3)), { wait: 'false' }), at(120_000));
    expect(next.code).toBe(0);
    expect(warnings(next)).toEqual([]);
    expect(next.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(service.count('message')).toBe(1);
    const prompt = (service.requests.find((r) => r.route === 'message')?.json as { prompt: string }).prompt;
    expect(prompt).toContain('5 requests were made on this thread');
    expect(asked.map((c) => c.reactions)).toEqual(asked.map(() => ['eyes']));
    expect(readNote(kept())?.waiting?.queued).toBeUndefined();
  });

  it('a report run writes nothing and sends nothing: it hands the thread owed five requests to its lane, whose run writes the end and sends them in one follow-up', async () => {
    const { gh, pr, service, asked, step, kept } = await burst();
    const [pending] = gh.statuses(APP, sha(2)).slice(-1);
    // The recipe without waiting: the thread step itself, on the schedule.
    const written = writes(gh).length;
    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(120_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(swept.outputs).toMatchObject({ mode: 'swept', status: 'swept', uses: '0' });
    expect(JSON.parse(swept.outputs.reported ?? '')).toEqual([]);
    expect(swept.stdout).toContain("its thread's own run writes the end and sends it.");
    expect(service.count('message')).toBe(0);
    expect(
      writes(gh)
        .slice(written)
        .map((r) => r.route),
    ).toEqual(['createWorkflowDispatch']);
    expect(readNote(kept())?.waiting).toMatchObject({ queued: asked.map((c) => c.id) });
    expect(gh.dispatches(APP)).toEqual([laneDispatch(pr.number)]);

    // The dispatched run: the thread's own, in its lane.
    const lane = await play(step(laneEvent(pr.number), { wait: 'false' }), at(130_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs).toMatchObject({ uses: '1' });
    expect(JSON.parse(lane.outputs.reported ?? '')).toMatchObject([
      { thread: pr.number, status: 'completed' },
    ]);
    // Its end is on the pass's commit, in the pass's context, before the follow-up's own status.
    const ends = gh.statuses(APP, sha(2)).filter((st) => st.context === pending?.context);
    expect(ends.map((st) => st.state)).toContain('success');
    expect(service.count('message')).toBe(1);
    const prompt = (service.requests.find((r) => r.route === 'message')?.json as { prompt: string }).prompt;
    expect(prompt).toContain('5 requests were made on this thread');
    expect(asked.map((c) => c.reactions)).toEqual(asked.map(() => ['eyes']));
    // One kept comment: the follow-up waits in it, with the thread's label.
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);
    expect(readNote(kept())?.waiting).toMatchObject({ status: { context: pending?.context } });
    expect(readNote(kept())?.waiting?.queued).toBeUndefined();
    expect(readNote(kept())?.waiting?.ended).toBeUndefined();
    expect(pr.labels).toEqual(['docs-agent-working']);

    // A second dispatch (a re-run of the report run) finds nothing owed: nothing is sent twice.
    service.script('get', { job: { status: 'active' } });
    const twice = await play(step(laneEvent(pr.number), { wait: 'false' }), at(140_000));
    expect(twice.outputs).toMatchObject({ uses: '0' });
    expect(service.count('message')).toBe(1);
    expect(service.jobs.size).toBe(1);
  });

  it("a separate report step (sweep: true, another step's comment) hands the requests to the thread's lane too", async () => {
    const { gh, pr, service, kept } = await burst();
    const swept = await play(sweepStep(service, gh), at(120_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(service.count('message')).toBe(0);
    expect(readNote(kept())?.waiting?.ended).toBeUndefined();
    expect(pr.labels).toEqual(['docs-agent-working']);
    expect(gh.dispatches(APP)).toEqual([laneDispatch(pr.number)]);
  });

  it('a hand-off GitHub refuses (no actions: write): the report run writes the end itself, keeps what is owed, says so, and the next run sends it', async () => {
    const { gh, pr, service, step, kept } = await burst();
    gh.fail('createWorkflowDispatch', { status: 403, message: 'Resource not accessible by integration' });
    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(120_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([expect.stringContaining('actions: write')]);
    expect(readNote(kept())?.waiting).toMatchObject({ ended: true });
    expect(pr.labels).toEqual(['docs-agent-working']);
    gh.unfail('createWorkflowDispatch');
    const next = await play(step(pushTo(pr, sha(3)), { wait: 'false' }), at(130_000));
    expect(next.outputs).toMatchObject({ uses: '1' });
    expect(service.count('message')).toBe(1);
  });

  it('a lane run whose send is refused (429) keeps everything owed; a later lane run sends it, once', async () => {
    const { gh, pr, service, step, kept, asked } = await burst();
    await play(step(SCHEDULE, { wait: 'false' }), at(120_000));
    service.script('message', {
      status: 429,
      headers: { 'retry-after': '7200' },
      json: { error: 'Rate limit' },
    });
    const refused = await play(step(laneEvent(pr.number), { wait: 'false' }), at(130_000));
    expect(refused.code).toBe(1);
    expect(service.count('message')).toBe(1);
    expect(readNote(kept())?.waiting).toMatchObject({ ended: true, queued: asked.map((c) => c.id) });
    expect(pr.labels).toEqual(['docs-agent-working']);
    // The end written before stays: no later write says otherwise.
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'success' });
    service.unscript('message');
    const again = await play(step(laneEvent(pr.number), { wait: 'false' }), at(140_000));
    expect(again.outputs).toMatchObject({ uses: '1' });
    expect(asked.map((c) => c.reactions)).toEqual(asked.map(() => ['eyes']));
    expect(readNote(kept())?.requests?.settled.flatMap((e) => e.ids)).toEqual(
      expect.arrayContaining(asked.map((c) => c.id)),
    );
  });
});

describe('pushes while the job works (wait: false, every-push)', () => {
  it("a push is held while the job works; the report run hands it to the thread's lane, whose run sends what changed, once", async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    gh.comparison(APP, `${sha(2)}...${sha(4)}`, { commits: [], files: [changedFile('src/late.ts')] });
    for (const head of [3, 4]) {
      service.script('get', { job: { status: 'active' } });
      const push = await play(step(pushTo(pr, sha(head)), { wait: 'false' }), at(60_000));
      service.unscript('get');
      expect(push.outputs).toMatchObject({ status: 'skipped', uses: '0' });
      expect(push.stdout).toContain('is still at work; what this push changed is sent when it is done');
      expect(gh.statuses(APP, sha(head))[0]).toMatchObject({
        state: 'success',
        description: expect.stringContaining('Sent when the agent is done'),
      });
    }
    expect(service.count('message')).toBe(0);

    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(swept.outputs).toMatchObject({ mode: 'swept', uses: '0' });
    expect(service.count('message')).toBe(0);
    expect(gh.dispatches(APP)).toHaveLength(1);

    const lane = await play(step(laneEvent(pr.number), { wait: 'false' }), at(11 * 60_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs).toMatchObject({ uses: '1' });
    expect(service.count('message')).toBe(1);
    const prompt = (service.requests.find((r) => r.route === 'message')?.json as { prompt: string }).prompt;
    expect(prompt).toContain('src/late.ts');
    // The change waits in the thread step's own comment, with a pending status on the new head.
    expect(readNote(kept())).toMatchObject({ head: sha(4), waiting: { status: { sha: sha(4) } } });
    expect(gh.statuses(APP, sha(4))[0]).toMatchObject({ state: 'pending' });
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);
  });

  it('under at-merge a push held while the job works is not owed: the report run writes the end, hands nothing off, sends nothing', async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    const atMerge = { followUp: 'at-merge', wait: 'false' };
    service.script('get', { job: { status: 'active' } });
    const push = await play(step(pushTo(pr, sha(3)), atMerge), at(60_000));
    service.unscript('get');
    // What followUp holds anyway says so: it is not "sent when the agent is done".
    expect(gh.statuses(APP, sha(3))[0]).toMatchObject({
      state: 'success',
      description: expect.stringContaining('Docs follow at the merge'),
    });
    expect(push.stdout).not.toContain('is sent when it is done');
    const swept = await play(step(SCHEDULE, atMerge), at(10 * 60_000));
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([{ status: 'completed' }]);
    expect(gh.dispatches(APP)).toEqual([]);
    expect(service.count('message')).toBe(0);
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });

  it('under at-merge a merge while the job works is owed in the record: the lane run sends it once, and a second lane run sends nothing', async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    const atMerge = { followUp: 'at-merge', wait: 'false' };
    const merge = mergedAt(pr, sha(2));
    service.script('get', { job: { status: 'active' } });
    const held = await play(step(merge, atMerge), at(60_000));
    service.unscript('get');
    expect(held.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(held.stdout).toContain('this merge is sent when it is done');
    // The merge's head is the one the job last looked at: only the record says the merge is owed.
    expect(readNote(kept())).toMatchObject({ head: sha(2), waiting: { merge: true } });
    expect(service.count('message')).toBe(0);

    await play(step(SCHEDULE, atMerge), at(10 * 60_000));
    expect(gh.dispatches(APP)).toEqual([laneDispatch(pr.number)]);
    const lane = await play(step(laneEvent(pr.number), atMerge), at(11 * 60_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs).toMatchObject({ uses: '1' });
    expect(service.count('message')).toBe(1);
    expect(readNote(kept())?.waiting?.merge).toBeUndefined();

    // Another lane run (a second project's report step, a re-run): the merge went once.
    service.script('get', { job: { status: 'active' } });
    const again = await play(step(laneEvent(pr.number), atMerge), at(12 * 60_000));
    service.unscript('get');
    expect(again.outputs).toMatchObject({ uses: '0' });
    service.script('get', { job: { status: 'completed' } });
    const after = await play(step(laneEvent(pr.number), atMerge), at(30 * 60_000));
    service.unscript('get');
    expect(after.outputs).toMatchObject({ uses: '0' });
    expect(service.count('message')).toBe(1);
  });

  it("under at-merge a merge its closed event told is not owed again by its merge commit's push while the job works: no lane run sends it twice", async () => {
    const { gh, service, step } = await docsThread(github, emulator);
    gh.workflow(APP, 'docs.yml', { inputs: ['docs-agent-thread'] });
    const pr = gh.thread(APP, { mergeCommitSha: sha(9), headSha: sha(2) });
    const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    const atMerge = { followUp: 'at-merge', wait: 'false', timeout: '1h' };
    const runOf = (event: Parameters<typeof step>[0], run: number) => {
      const options = step(event, atMerge);
      return { ...options, env: { ...options.env, GITHUB_RUN_ID: String(run) } };
    };
    const opened = await play(runOf(pullRequestAt(pr.number, sha(2), 'opened'), 500), at());
    // The closed event's run writes the opening's end, then tells the merge, and leaves it at work.
    const merge = await play(runOf(mergedAt(pr, sha(2)), 501), at(60_000));
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId, uses: '1' });
    expect(readNote(kept())).toMatchObject({ merged: 501, waiting: { run: 501 } });
    service.script('get', { job: { status: 'active' } });
    const push = await play(runOf(pushEvent(sha(9), { before: sha(8) }), 502), at(2 * 60_000));
    service.unscript('get');
    expect(push.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(push.stdout).toContain(`Skipped: run 501 already told job ${opened.outputs.jobId} of this merge`);
    expect(readNote(kept())?.waiting?.merge).toBeUndefined();

    await play(runOf(SCHEDULE, 503), at(10 * 60_000));
    expect(gh.dispatches(APP)).toEqual([]);
    expect(service.count('message')).toBe(1);
  });

  it("under at-merge an owed merge the lane's replay holds (the budget spent) is settled: the record and label go, and no report run hands the thread off again", async () => {
    const { gh, pr, service, step, kept } = await leftAtWork({ timeout: '1h' });
    const spent = { followUp: 'at-merge', wait: 'false', budget: '1' };
    const merge = mergedAt(pr, sha(2));
    service.script('get', { job: { status: 'active' } });
    await play(step(merge, spent), at(60_000));
    service.unscript('get');
    expect(readNote(kept())?.waiting).toMatchObject({ merge: true });
    await play(step(SCHEDULE, spent), at(10 * 60_000));
    expect(gh.dispatches(APP)).toEqual([laneDispatch(pr.number)]);
    const lane = await play(step(laneEvent(pr.number), spent), at(11 * 60_000));
    expect(lane.code).toBe(0);
    expect(lane.outputs).toMatchObject({ uses: '0' });
    expect(service.count('message')).toBe(0);
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
    const before = writes(gh).length;
    await play(step(SCHEDULE, spent), at(70 * 60_000));
    expect(gh.dispatches(APP)).toHaveLength(1);
    expect(writes(gh).slice(before)).toEqual([]);
  });

  it("a separate report step (sweep: true) on a thread's dispatch does nothing: the thread's own step is its lane", async () => {
    const { gh, pr, service } = await leftAtWork({ timeout: '1h' });
    const reads = service.count('get');
    const before = writes(gh).length;
    const beside = await play(sweepStep(service, gh, laneEvent(pr.number)), at(10 * 60_000));
    expect(beside.code).toBe(0);
    expect(beside.stdout).toContain('this report step does nothing on it');
    expect(service.count('get')).toBe(reads);
    expect(writes(gh).slice(before)).toEqual([]);
  });

  it('a report run whose thread has nothing new sends nothing, hands nothing off and writes nothing more', async () => {
    const { gh, service, step } = await leftAtWork({ timeout: '1h' });
    const swept = await play(step(SCHEDULE, { sweep: 'true', wait: 'false' }), at(10 * 60_000));
    expect(swept.outputs).toMatchObject({ uses: '0' });
    expect(service.count('message')).toBe(0);
    expect(gh.dispatches(APP)).toEqual([]);
    const before = writes(gh).length;
    const again = await play(step(SCHEDULE, { sweep: 'true', wait: 'false' }), at(20 * 60_000));
    expect(again.outputs).toMatchObject({ uses: '0' });
    expect(writes(gh).slice(before)).toEqual([]);
  });
});

describe('a branch pushed to directly (its job kept in commit statuses)', () => {
  it("a report run finds the default branch's pending statuses, and writes the job's end on each, once", async () => {
    const gh = await github();
    const { docsPr } = world(gh);
    const service = await emulator({
      docsRepoUrl: `${gh.serverUrl}/${DOCS}`,
      final: { status: 'completed' },
    });
    const push = (n: number) =>
      play(
        {
          inputs: inputsFor(service, {
            thread: 'true',
            status: 'true',
            docsToken: DOCS_TOKEN,
            wait: 'false',
            labels: 'docs',
          }),
          env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(200 + n) },
          event: pushEvent(sha(n), { before: n === 1 ? '0'.repeat(40) : sha(n - 1) }),
        },
        at(),
      );
    service.script('get', { job: { status: 'active' } });
    const first = await push(1);
    service.unscript('get');
    expect(first.outputs).toMatchObject({ mode: 'created', status: 'active', uses: '1' });
    const [pending] = gh.statuses(APP, sha(1));
    expect(pending).toMatchObject({
      state: 'pending',
      description: expect.stringContaining('Goes on in the service'),
    });
    gh.history(APP, [sha(1)]);

    const swept = await play(sweepStep(service, gh), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { commit: sha(1), jobId: first.outputs.jobId, status: 'completed' },
    ]);
    expect(gh.statuses(APP, sha(1))[0]).toMatchObject({ state: 'success', context: pending?.context });
    expect(docsPr.labels).toEqual([]);

    const before = writes(gh).length;
    const again = await play(sweepStep(service, gh), at(20 * 60_000));
    expect(JSON.parse(again.outputs.reported ?? '')).toEqual([]);
    expect(writes(gh).slice(before)).toEqual([]);
  });

  it("a push while the branch's job works is held; the report run writes the end and sends nothing; the branch's next push sends that change", async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ docsRepoUrl: `${gh.serverUrl}/${DOCS}` });
    const branchInputs = { thread: 'true', status: 'true', docsToken: DOCS_TOKEN, wait: 'false' };
    const push = (n: number) =>
      play(
        {
          inputs: inputsFor(service, branchInputs),
          env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(200 + n) },
          event: pushEvent(sha(n), { before: n === 1 ? '0'.repeat(40) : sha(n - 1) }),
        },
        at(),
      );
    service.script('get', { job: { status: 'active' } }, { job: { status: 'active' } });
    const first = await push(1);
    gh.history(APP, [sha(2), sha(1)]);
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, { commits: [], files: [changedFile('src/late.ts')] });
    const held = await push(2);
    service.unscript('get');
    expect(held.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      description: `Sent when the agent is done: job ${first.outputs.jobId ?? ''} · run 202`,
    });

    const swept = await play(
      { ...sweepStep(service, gh), inputs: inputsFor(service, { ...branchInputs, sweep: 'true' }) },
      at(10 * 60_000),
    );
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(swept.outputs).toMatchObject({ uses: '0' });
    expect(swept.stdout).toContain('its next push sends that change');
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([{ commit: sha(1), status: 'completed' }]);
    expect(gh.statuses(APP, sha(1))[0]).toMatchObject({ state: 'success' });
    expect(service.count('message')).toBe(0);
  });

  it('leaves a job still at work pending, and one the service no longer knows is an error', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator({ docsRepoUrl: `${gh.serverUrl}/${DOCS}` });
    service.script('get', { job: { status: 'active' } });
    await play(
      {
        inputs: inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN, wait: 'false' }),
        env: { ...gitHubEnv(gh), GITHUB_RUN_ID: '201' },
        event: pushEvent(sha(1), { before: '0'.repeat(40) }),
      },
      at(),
    );
    service.unscript('get');
    gh.history(APP, [sha(1)]);
    service.script('get', { job: { status: 'active' } });
    const still = await play(sweepStep(service, gh), at(60_000));
    expect(still.stdout).toContain("The default branch's agent job");
    expect(gh.statuses(APP, sha(1))[0]).toMatchObject({ state: 'pending' });
    service.unscript('get');
    service.script('get', { status: 404, json: { error: 'Job not found' } });
    await play(sweepStep(service, gh), at(2 * 60_000));
    expect(gh.statuses(APP, sha(1))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('No longer known to the service'),
    });
  });
});

/** A `pull_request` `opened` event of acme/app's pull request `number`, opened by an app. */
function pullRequestOpened(number: number) {
  return {
    action: 'opened',
    number,
    pull_request: {
      number,
      user: { login: 'docs-service[bot]', type: 'Bot' },
      head: { repo: { full_name: APP }, sha: sha(40) },
      base: { repo: { full_name: APP } },
    },
  };
}
