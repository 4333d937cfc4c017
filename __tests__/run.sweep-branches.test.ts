// A branch pushed to directly keeps its thread's job in the step's commit status, and a run that
// leaves it at work (`wait: false`) records it as a git ref of the action's own: a report run lists
// those records in one request and finds each job however many commits or statuses came after it,
// on whatever branch, in requests that grow with the jobs at work, not with the repository's
// activity. It writes each ended job's end and deletes the record. Where GitHub refuses the
// records (no `contents: write`), the writing run says so once and report runs look where they did
// before: the default branch's newest commits. Played with run() in this process against both
// emulators.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import {
  emulators,
  gitHubEmulators,
  inputsFor,
  runHere as play,
  serviceTimeOnly,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, BOT, DOCS, DOCS_TOKEN, gitHubEnv, pushEvent, world } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { GitHubEmulator } from '../emulators/github.js';
import type { Emulator } from '../emulators/server.js';
import type { RunDeps } from '../src/main.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const T0 = 1_700_000_000_000;
/** The running step's clock: GitHub (the emulator) dates what it writes by it too. */
let clock = new VirtualClock(T0);
const at = (ms = 0): RunDeps => {
  clock = new VirtualClock(T0 + ms);
  return { ...serviceTimeOnly(), clock };
};

/** A commit's SHA, hex, for histories longer than `sha(n)` has digits: commit(1), commit(2) … */
const commit = (n: number) => n.toString(16).padStart(40, 'c');
/** `count` commits that came after `after`, newest first: commit(after + count) … commit(after + 1). */
const later = (after: number, count: number) =>
  Array.from({ length: count }, (_, i) => commit(after + count - i));

/** What GitHub was asked to change: every request but a read (a GET, or a GraphQL query). */
const writes = (gh: GitHubEmulator) =>
  gh.requests.filter((r) => r.method !== 'GET' && !JSON.stringify(r.json ?? '').includes('"query {'));

/** The records of jobs left at work, as the repository holds them. */
const records = (gh: GitHubEmulator) =>
  gh.refs(APP).filter((r) => r.ref.startsWith('refs/agent-job-action/waiting/'));

/**
 * acme/app, whose workflow's token may write its statuses and the rest, and with `contents` its
 * git refs too (the records); a service whose jobs end `completed` unless a test scripts them.
 */
async function branchWorld({ contents = true } = {}) {
  const gh = await github({ now: () => clock.now() });
  const { docsPr } = world(gh);
  if (contents)
    gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: [APP], contents: [APP] });
  const service = await emulator({ docsRepoUrl: `${gh.serverUrl}/${DOCS}`, final: { status: 'completed' } });
  /** A push of `head` to `branch` whose run leaves its job at work (the service reads it `active`). */
  const push = async (head: string, branch = 'main', runId = 201) => {
    service.script('get', { job: { status: 'active' } });
    const result = await play(
      {
        inputs: inputsFor(service, {
          thread: 'true',
          status: 'true',
          docsToken: DOCS_TOKEN,
          wait: 'false',
        }),
        env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(runId) },
        event: pushEvent(head, { ref: `refs/heads/${branch}`, before: '0'.repeat(40) }),
      },
      at(),
    );
    service.unscript('get');
    expect(result.outputs).toMatchObject({ mode: 'created', status: 'active', uses: '1' });
    return result;
  };
  return { gh, service, docsPr, push };
}

/** A report run (a schedule's), as the recipe's separate report step writes it: no prompt. */
async function sweep(gh: GitHubEmulator, service: Emulator, ms: number, more: Record<string, string> = {}) {
  const inputs = inputsFor(service, { sweep: 'true', docsToken: DOCS_TOKEN, ...more });
  delete inputs.prompt;
  const event = { name: 'schedule', payload: { schedule: '17 * * * *' } };
  const before = gh.requests.length;
  const result = await play({ inputs, env: gitHubEnv(gh), event }, at(ms));
  return { ...result, asked: gh.requests.slice(before) };
}

describe("a branch's job left at work, recorded for report runs", () => {
  it('is found after 150 statuses and 30 commits came after it; its end is written and its record deleted, once', async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1));
    expect(warnings(left)).toEqual([]);
    expect(records(gh)).toEqual([{ ref: expect.any(String), sha: commit(1) }]);
    expect(left.stdout).toContain(`Recorded agent job ${left.outputs.jobId ?? ''}, left at work on`);
    const [pending] = gh.statuses(APP, commit(1));
    gh.history(APP, [...later(1, 30), commit(1)]);
    for (let i = 0; i < 150; i++)
      gh.addStatus(APP, commit(1), { creator: 'ci[bot]', context: `ci/${i}`, description: 'passed' });

    const swept = await sweep(gh, service, 10 * 60_000);
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toEqual([
      { commit: commit(1), jobId: left.outputs.jobId, status: 'completed', prLink: expect.any(String) },
    ]);
    const own = gh.statuses(APP, commit(1)).filter((s) => s.creator === BOT);
    expect(own[0]).toMatchObject({ state: 'success', context: pending?.context });
    expect(records(gh)).toEqual([]);
    // The records were read, not the default branch's commits.
    expect(swept.asked.filter((r) => r.route === 'listCommits')).toEqual([]);
    expect(swept.stdout).toContain(
      `A branch's agent job ${left.outputs.jobId ?? ''} is completed; its end is written on ${commit(1).slice(0, 12)}.`,
    );

    const again = await sweep(gh, service, 20 * 60_000);
    expect(JSON.parse(again.outputs.reported ?? '')).toEqual([]);
    expect(writes(gh).filter((r) => again.asked.includes(r))).toEqual([]);
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
  });

  it('past its timeout: marked overdue once, its record kept, and its real end replaces the mark when it comes', async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1));
    gh.history(APP, [commit(1)]);
    const active = { job: { status: 'active' } };
    service.script('get', active, active);
    const marked = await sweep(gh, service, 2 * 60 * 60_000, { timeout: '1h' });
    expect(JSON.parse(marked.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), status: 'timed-out' },
    ]);
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('Timed out'),
    });
    // Not an end: the record stays for the real one.
    expect(records(gh)).toHaveLength(1);
    const again = await sweep(gh, service, 3 * 60 * 60_000, { timeout: '1h' });
    expect(JSON.parse(again.outputs.reported ?? '')).toEqual([]);
    expect(writes(gh).filter((r) => again.asked.includes(r))).toEqual([]);
    service.unscript('get');
    const ended = await sweep(gh, service, 4 * 60 * 60_000, { timeout: '1h' });
    expect(JSON.parse(ended.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), jobId: left.outputs.jobId, status: 'completed' },
    ]);
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({ state: 'success' });
    expect(records(gh)).toEqual([]);
  });

  it("in a monorepo, on the docs PR's own event: the branch job's end is written and that docs PR is marked as one", async () => {
    const { gh, service, push } = await branchWorld();
    const docsHere = gh.thread(APP, { opener: 'docs-service[bot]' });
    const link = `${gh.serverUrl}/${APP}/pull/${docsHere.number}`;
    const left = await push(commit(1));
    service.script('get', { job: { status: 'completed', prLink: link } });
    // Docs in this repository: the workflow's own token reaches the docs PR.
    const inputs = inputsFor(service, { sweep: 'true' });
    delete inputs.prompt;
    const pull = {
      number: docsHere.number,
      user: { login: 'docs-service[bot]', type: 'Bot' },
      head: { repo: { full_name: APP }, sha: commit(9) },
      base: { repo: { full_name: APP } },
    };
    const event = {
      name: 'pull_request',
      payload: { action: 'opened', number: docsHere.number, pull_request: pull },
    };
    const swept = await play({ inputs, env: gitHubEnv(gh), event }, at(10 * 60_000));
    expect(warnings(swept)).toEqual([]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), jobId: left.outputs.jobId, status: 'completed' },
    ]);
    expect(docsHere.labels).toEqual(['docs-agent-pr']);
  });

  it("the branch's next push, finding the pass ended, writes that pass's end on its own commit before it sends", async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1));
    const next = await play(
      {
        inputs: inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN, wait: 'false' }),
        env: { ...gitHubEnv(gh), GITHUB_RUN_ID: '202' },
        event: pushEvent(commit(2), { before: commit(1) }),
      },
      at(10 * 60_000),
    );
    expect(next.outputs).toMatchObject({ mode: 'followed-up', jobId: left.outputs.jobId });
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({
      state: 'success',
      description: expect.stringMatching(/^Completed: job \S+ · run 201$/),
    });
  });

  it('is found on a branch other than the default one, whose newest commits never show it', async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1), 'feature/search');
    gh.history(APP, later(100, 12));
    const swept = await sweep(gh, service, 10 * 60_000);
    expect(warnings(swept)).toEqual([]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), jobId: left.outputs.jobId, status: 'completed' },
    ]);
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({ state: 'success', creator: BOT });
    expect(records(gh)).toEqual([]);
  });

  it('costs a report run requests that grow with the jobs left at work, not with the commits that came after them', async () => {
    /** The GitHub requests of a report run, by route, with `jobs` jobs at work and `commits` commits after them. */
    const asked = async (jobs: number, commits: number) => {
      const { gh, service, push } = await branchWorld();
      for (let n = 1; n <= jobs; n++) await push(commit(n), `topic-${n}`, 200 + n);
      gh.history(APP, [...later(jobs, commits), ...later(0, jobs)]);
      for (let n = 1; n <= jobs; n++)
        for (let i = 0; i < commits; i++)
          gh.addStatus(APP, commit(n), { creator: 'ci[bot]', context: `ci/${i}`, description: 'passed' });
      service.script('get', ...Array.from({ length: jobs }, () => ({ job: { status: 'active' } })));
      // Still at work within the step's timeout (GitHub dates the statuses on the run's clock).
      const swept = await sweep(gh, service, 60_000, { timeout: '1h' });
      service.unscript('get');
      expect(warnings(swept)).toEqual([]);
      expect(swept.stdout).toContain("A branch's agent job");
      expect(records(gh)).toHaveLength(jobs);
      const routes: Record<string, number> = {};
      for (const { route } of swept.asked) routes[route] = (routes[route] ?? 0) + 1;
      return routes;
    };
    const few = await asked(3, 5);
    const many = await asked(3, 60);
    expect(many).toEqual(few);
    // One listing of the records, one identity query, one page of statuses a job; no commit read.
    expect(few).toMatchObject({ listMatchingRefs: 1, graphql: 1, listStatuses: 3 });
    expect(few.listCommits).toBeUndefined();
    const one = await asked(1, 60);
    expect(one).toEqual({ ...few, listStatuses: 1 });
  });

  it('a record GitHub refuses (no contents: write) is one warning naming it; report runs look among the default branch’s newest commits', async () => {
    const { gh, service, push } = await branchWorld({ contents: false });
    const left = await push(commit(1));
    expect(warnings(left)).toEqual([
      expect.stringMatching(
        /^Could not record agent job .* \(403 "Resource not accessible by integration"\): githubToken needs contents: write on acme\/app.* report runs look for a branch's job only among the default branch's 10 newest commits\.$/,
      ),
    ]);
    expect(records(gh)).toEqual([]);
    gh.history(APP, [commit(3), commit(2), commit(1)]);
    const swept = await sweep(gh, service, 10 * 60_000);
    expect(warnings(swept)).toEqual([]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), jobId: left.outputs.jobId, status: 'completed' },
    ]);
    expect(swept.stdout).toContain("The default branch's agent job");
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({ state: 'success', creator: BOT });
  });

  it('a listing GitHub refuses is one warning naming contents: read, and the run looks among the default branch’s newest commits; a later run deletes the record whose end it wrote', async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1));
    gh.history(APP, [commit(2), commit(1)]);
    gh.fail('listMatchingRefs', { status: 403, message: 'Resource not accessible by integration' });
    const swept = await sweep(gh, service, 10 * 60_000);
    expect(warnings(swept)).toEqual([
      expect.stringMatching(
        /^Could not list the branches' jobs left at work .*githubToken needs contents: read on acme\/app.* This run looks for them only among the default branch's 10 newest commits\.$/,
      ),
    ]);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { commit: commit(1), status: 'completed' },
    ]);
    expect(records(gh)).toHaveLength(1);

    const later = await sweep(gh, service, 20 * 60_000);
    expect(warnings(later)).toEqual([]);
    expect(JSON.parse(later.outputs.reported ?? '')).toEqual([]);
    expect(later.stdout).toContain(
      `Agent job ${left.outputs.jobId ?? ''} is completed; another run wrote its end`,
    );
    expect(records(gh)).toEqual([]);
    // Nothing but the record's deletion: the status keeps the end written once.
    expect(
      writes(gh)
        .filter((r) => later.asked.includes(r))
        .map((r) => r.route),
    ).toEqual(['deleteRef']);
  });

  it('a job still at work stays pending with its record; a dry run writes and deletes nothing', async () => {
    const { gh, service, push } = await branchWorld();
    const left = await push(commit(1), 'docs-fixes');
    service.script('get', { job: { status: 'active' } });
    const still = await sweep(gh, service, 60_000, { timeout: '1h' });
    service.unscript('get');
    expect(still.stdout).toContain(
      `A branch's agent job ${left.outputs.jobId ?? ''} (${commit(1).slice(0, 12)}) is still at work`,
    );
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({ state: 'pending' });
    expect(records(gh)).toHaveLength(1);

    const dry = await sweep(gh, service, 2 * 60_000, { dryRun: 'true' });
    expect(dry.outputs).toMatchObject({ status: 'dry-run' });
    expect(dry.stdout).toContain('Dry run: the end of');
    expect(writes(gh).filter((r) => dry.asked.includes(r))).toEqual([]);
    expect(records(gh)).toHaveLength(1);
    expect(gh.statuses(APP, commit(1))[0]).toMatchObject({ state: 'pending' });
  });
});
