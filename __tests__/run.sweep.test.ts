// A report run (`sweep: true`), played with run() in this process against both emulators: after a
// thread's run left its job at work without waiting, a run on a schedule, a dispatch or the docs
// pull request's own event writes the job's end on that thread — its comment, its pending status
// on its own commit and context, the docs PR's labels, the thread's label off — once, and nothing
// while the job still works. It sends nothing to the service.
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
import { APP, DOCS_TOKEN, gitHubEnv, pushTo, sha } from '../__fixtures__/github-world.js';
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

/** A thread whose opening run did not wait: its job read `active` once, then as the test scripts. */
async function leftAtWork(options: { timeout?: string } = {}) {
  const world = await docsThread(github, emulator);
  const { pr, step, service } = world;
  service.script('get', { job: { status: 'active' } });
  const opening = await play(
    step(pushTo(pr, sha(2), 'opened'), { wait: 'false', labels: 'docs', ...options }),
    at(),
  );
  service.unscript('get');
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { ...world, opening, kept };
}

describe('sweep: true', () => {
  it("on a schedule writes an ended job's end on its thread, once; the next sweep writes nothing", async () => {
    const { gh, pr, docsPr, docsLink, service, opening, kept } = await leftAtWork();
    expect(pr.labels).toEqual(['docs-agent-working']);
    const [pending] = gh.statuses(APP, sha(2));

    const swept = await play(sweepStep(service, gh), at(10 * 60_000));
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

  it('past its timeout: timed out, the thread waits no more', async () => {
    const { gh, pr, service } = await leftAtWork({ timeout: '1h' });
    service.script('get', { job: { status: 'active' } });
    const swept = await play(sweepStep(service, gh), at(2 * 60 * 60_000));
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([{ status: 'timed-out' }]);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('Timed out'),
    });
    expect(pr.labels).toEqual([]);
  });

  it("on the docs pull request's own event (a monorepo), waits for the job that opened it and reports it within the run", async () => {
    const { gh, pr, service, kept } = await leftAtWork();
    // The agent opened its docs pull request in the run's own repository, and is finishing.
    const docsHere = gh.thread(APP, { opener: 'docs-service[bot]' });
    const link = `${gh.serverUrl}/${APP}/pull/${docsHere.number}`;
    service.script(
      'get',
      { job: { status: 'active', prLink: link } },
      { job: { status: 'active', prLink: link } },
    );
    const opened = { name: 'pull_request', payload: pullRequestOpened(docsHere.number) };
    const swept = await play(sweepStep(service, gh, opened), at(60_000));
    expect(swept.code).toBe(0);
    expect(swept.stdout).toContain('opened this pull request: waiting for it to end.');
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { thread: pr.number, status: 'completed' },
    ]);
    expect(kept()).toContain('✅ **Completed**');
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'success' });
    expect(pr.labels).toEqual([]);
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
