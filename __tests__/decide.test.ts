// The first step on its own: `decide` over plain fakes of what it reads of GitHub and of the
// service's client, with the inputs, request and features read as run() reads them. What it
// decides (skip, create, follow up, resume), what it reads to decide it, the one thing a decision
// writes (a skip's status), and the prompt it hands on.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import { commentEvent, pullRequestAt, pushEvent, runContext, sha } from '../__fixtures__/github-world.js';
import { recorder } from '../__fixtures__/log.js';
import { fakeReads, fakeService, type ReadAnswers, type ServiceScript } from '../__fixtures__/ports.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import { ActionFailure } from '../src/service/errors.js';
import { decide, type Decision } from '../src/decide/decide.js';
import type { Payload } from '../src/core/event.js';
import { compilePaths } from '../src/decide/paths.js';
import type { Memory, ThreadNote } from '../src/core/ports.js';
import { redactAlso } from '../src/core/secrets.js';
import { readSetup } from '../src/decide/setup.js';

const BASE: Record<string, string> = {
  prompt: 'Document the change.',
  projectId: 'proj',
  apiKey: 'mint_decide_key',
  baseUrl: 'https://api.example.com',
  wait: 'true',
  timeout: '10m',
  pollInterval: '10s',
  githubToken: WORKFLOW_TOKEN,
};
const PR_LINK = 'https://github.com/acme/docs/pull/4';
/** The thread's job, as the note of an earlier run (41) left it, with the head it last saw. */
const NOTE: ThreadNote = { job: 'job-7', head: sha(1), run: 41, attempt: 1 };

/** A decision to create a job with `prompt`. */
const created = (prompt: string, memory: Memory = {}): Decision => ({
  kind: 'go',
  mode: { kind: 'create', projectId: 'proj' },
  prompt,
  memory,
});

interface Given {
  inputs?: Record<string, string>;
  event?: { name: string; payload: Payload };
  runAttempt?: number;
  reads?: ReadAnswers;
  service?: ServiceScript;
  /** Whether the GitHub side loads (default: it does). */
  loads?: boolean;
}

/** A run of `decide` as run() makes it, over fakes: the decision and what each fake was asked. */
function decider(given: Given = {}) {
  const values = { ...BASE, ...given.inputs };
  const { name, payload } = given.event ?? pullRequestAt(3, sha(2));
  const context = runContext({ eventName: name, payload, runAttempt: given.runAttempt ?? 1 });
  const { inputs, request, features } = readSetup((input) => values[input] ?? '', context);
  const reads = fakeReads(given.reads);
  const service = fakeService(given.service);
  const log = recorder();
  const clock = new VirtualClock();
  const decided = (): Promise<Decision> =>
    decide(inputs, {
      event: context.event,
      request,
      features,
      ...(inputs.paths.length > 0 ? { paths: compilePaths(inputs.paths) } : {}),
      github: async () => (given.loads === false ? undefined : reads),
      client: service,
      log,
      clock,
      deadline: clock.now() + inputs.timeout,
      context: { operation: 'create', baseUrl: inputs.baseUrl, projectId: inputs.projectId },
      signal: new AbortController().signal,
      run: { runId: context.runId, attempt: context.runAttempt, actor: context.actor },
    });
  return { decided, reads: reads.calls, service: service.calls, log: log.lines };
}

describe('who asks', () => {
  it('skips a bot allowedActors does not name, reading nothing and sending nothing', async () => {
    const { decided, reads, service } = decider({
      inputs: { trigger: '/docs', thread: 'true', context: 'auto' },
      event: commentEvent(3, '/docs fix the typo', { login: 'helper[bot]', type: 'Bot' }),
    });
    expect(await decided()).toEqual({
      kind: 'skip',
      notice:
        'Skipped: "helper[bot]" may not start a docs job here: a bot starts a job only when allowedActors names it. People with write access to the repository may; allowedActors can name others.',
    });
    expect(reads).toEqual([]);
    expect(service).toEqual([]);
  });

  it('skips a commenter whose role is below write after one look-up of their access, and reads nothing else', async () => {
    const { decided, reads, service } = decider({
      inputs: { trigger: '/docs', thread: 'true', context: 'auto' },
      event: commentEvent(3, '/docs fix the typo', { login: 'mallory', association: 'CONTRIBUTOR' }),
      reads: { access: { permission: 'read', role: 'triage' }, memory: { note: NOTE } },
    });
    expect(await decided()).toEqual({
      kind: 'skip',
      notice:
        'Skipped: mallory may not start a docs job here: their role on the repository is triage, and a job needs write access. People with write access to the repository may; allowedActors can name others.',
    });
    expect(reads).toEqual([['accessOf', 'mallory']]);
    expect(service).toEqual([]);
  });
});

describe('the paths gate', () => {
  const push = pushEvent(sha(2));

  it('goes ahead when a changed file is under paths, and says which', async () => {
    const { decided, reads, log } = decider({
      inputs: { paths: 'docs/**' },
      event: push,
      reads: { changed: { files: ['src/a.ts', 'docs/guide.md'] } },
    });
    expect(await decided()).toEqual(created('Document the change.'));
    expect(reads).toEqual([['changedFiles', undefined]]);
    expect(log).toEqual(['info: 2 files changed, 1 file under paths ("docs/guide.md").']);
  });

  it('skips a whole list with nothing under paths, and writes the skip status', async () => {
    const { decided, reads, service } = decider({
      inputs: { paths: 'docs/**', status: 'true' },
      event: push,
      reads: { changed: { files: ['src/a.ts', 'src/b.ts'] } },
    });
    // Decide writes nothing: the skip carries the status the report writes.
    expect(await decided()).toEqual({
      kind: 'skip',
      notice: 'Skipped: 2 files changed, none under paths.',
      held: { status: 'No docs-relevant change', memory: {} },
    });
    expect(reads).toEqual([
      ['recall', false],
      ['changedFiles', undefined],
    ]);
    expect(service).toEqual([]);
  });

  it("on a thread, reads what changed since the head its job last saw, and the skip's status keeps naming that job", async () => {
    const { decided, reads, service } = decider({
      inputs: { paths: 'docs/**', thread: 'true', status: 'true' },
      reads: { memory: { note: NOTE }, changed: { files: ['src/a.ts'] } },
    });
    expect(await decided()).toEqual({
      kind: 'skip',
      notice: 'Skipped: 1 file changed, none under paths.',
      held: { status: 'No docs-relevant change', job: 'job-7', memory: { note: NOTE } },
    });
    expect(reads).toEqual([['recall', true], ['moment'], ['changedFiles', sha(1)]]);
    expect(service).toEqual([]);
  });

  it('goes ahead with a warning when the list may be partial', async () => {
    const { decided, reads, log } = decider({
      inputs: { paths: 'docs/**' },
      event: push,
      reads: { changed: { files: ['src/a.ts'], partial: 'The push was forced.' } },
    });
    expect(await decided()).toMatchObject({ kind: 'go', mode: { kind: 'create' } });
    expect(reads).toEqual([['changedFiles', undefined]]);
    expect(log).toEqual([
      'warning: The push was forced. None of the 1 file listed is under paths, but one left out may be, so the job goes ahead.',
    ]);
  });

  it('goes ahead with a warning when GitHub cannot list the files', async () => {
    const { decided, reads, log } = decider({
      inputs: { paths: 'docs/**' },
      event: push,
      reads: { changed: { unreadable: 'GitHub could not compare the commits (502).' } },
    });
    expect(await decided()).toMatchObject({ kind: 'go', mode: { kind: 'create' } });
    expect(reads).toEqual([['changedFiles', undefined]]);
    expect(log).toEqual([
      'warning: GitHub could not compare the commits (502). Whether it touched paths is unknown, so the job goes ahead.',
    ]);
  });
});

describe("the thread's memory", () => {
  const thread = { thread: 'true', context: 'auto' };
  /** A context section that says which head it reads from. */
  const context = (since: string | undefined) =>
    since ? `Changed since ${since.slice(0, 7)}.` : 'The whole pull request.';

  it("follows the thread's job up while it is active, with what changed since its head; its replacement gets the whole context", async () => {
    const { decided, reads, service, log } = decider({
      inputs: thread,
      reads: { memory: { note: NOTE }, context },
      service: { get: [{ id: 'job-7', status: 'active', prLink: PR_LINK }] },
    });
    const decision = await decided();
    expect(decision).toEqual({
      kind: 'go',
      mode: { kind: 'follow-up', jobId: 'job-7' },
      prompt: 'Document the change.\n\nChanged since 1111111.',
      memory: { note: NOTE },
      replacement: { jobId: 'job-7', prLink: PR_LINK, prompt: expect.any(Function) },
    });
    expect(service).toEqual([['get', 'job-7']]);
    expect(log).toEqual(['info: Agent job job-7 of the thread is active: this run follows it up.']);
    const replacement = decision.kind === 'go' ? await decision.replacement?.prompt() : undefined;
    expect(replacement).toBe('Document the change.\n\nThe whole pull request.');
    // Where the push stands, and whether anything is new since the job's head, are read first.
    expect(reads).toEqual([
      ['recall', true],
      ['moment'],
      ['changedFiles', sha(1)],
      ['context', sha(1), 20000],
      ['context', undefined, 20000],
    ]);
  });

  it('creates a job when the thread has none, reading no job and offering no replacement', async () => {
    const { decided, reads, service } = decider({ inputs: thread, reads: { memory: {}, context } });
    expect(await decided()).toEqual(created('Document the change.\n\nThe whole pull request.'));
    expect(reads).toEqual([['recall', true], ['moment'], ['context', undefined, 20000]]);
    expect(service).toEqual([]);
  });

  it('skips a docs PR before anything else: no requests gathered, no job read, its success status', async () => {
    const { decided, reads, service } = decider({
      inputs: { ...thread, trigger: '/docs' },
      reads: { memory: { opened: { docsLabel: true, by: { login: 'octocat' } } }, context },
    });
    expect(await decided()).toEqual({
      kind: 'skip',
      notice: expect.stringContaining('carries the label docs-agent-pr'),
      held: {
        status: 'A docs PR starts no docs job',
        memory: { opened: { docsLabel: true, by: { login: 'octocat' } } },
      },
    });
    expect(reads).toEqual([['recall', true]]);
    expect(service).toEqual([]);
  });

  it('skips a pull request that a job at work on another thread opened, after one read of that job', async () => {
    const atWork = { jobs: ['job-8', 'job-9'], self: 'https://github.com/acme/app/pull/3' };
    const { decided, service } = decider({
      inputs: thread,
      reads: { memory: { atWork }, context },
      service: {
        get: [
          { id: 'job-8', status: 'active' },
          { id: 'job-9', status: 'completed', prLink: 'https://github.com/acme/app/pull/3/' },
        ],
      },
    });
    expect(await decided()).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining(
        'agent job job-9 of a thread of this workflow opened this pull request',
      ),
      held: { status: 'A docs PR starts no docs job' },
    });
    expect(service).toEqual([
      ['get', 'job-8'],
      ['get', 'job-9'],
    ]);
  });

  it('a job at work that cannot be read is a warning, and the pull request is a thread of its own', async () => {
    const atWork = { jobs: ['job-8'], self: 'https://github.com/acme/app/pull/3' };
    const { decided, log } = decider({
      inputs: thread,
      reads: { memory: { atWork }, context },
      service: { get: [{ fault: { kind: 'no-answer', code: 'ECONNRESET' } }] },
    });
    expect(await decided()).toMatchObject({ kind: 'go', mode: { kind: 'create' } });
    expect(log).toEqual([
      expect.stringMatching(/^warning: Could not read agent job job-8, at work on another thread/),
    ]);
  });

  it("creates a job when the thread's job failed", async () => {
    const { decided, service } = decider({
      inputs: thread,
      reads: { memory: { note: NOTE }, context },
      service: { get: [{ id: 'job-7', status: 'failed' }] },
    });
    expect(await decided()).toEqual(
      created('Document the change.\n\nThe whole pull request.', { note: NOTE }),
    );
    expect(service).toEqual([['get', 'job-7']]);
  });

  it('resumes the job an earlier attempt of this run started, with no prompt and no read of the service', async () => {
    const note: ThreadNote = { ...NOTE, run: 42, runs: [{ run: 42, attempt: 1, job: 'job-5' }] };
    const { decided, reads, service } = decider({
      inputs: thread,
      runAttempt: 2,
      reads: { memory: { note }, context },
    });
    expect(await decided()).toEqual({
      kind: 'go',
      mode: { kind: 'resume', jobId: 'job-5' },
      memory: { note },
    });
    expect(reads).toEqual([['recall', true]]);
    expect(service).toEqual([]);
  });

  it("skips, writing a status that names no job, when the thread's docs PR was closed unmerged", async () => {
    const { decided, reads, service } = decider({
      inputs: { ...thread, status: 'true' },
      reads: { memory: { note: NOTE }, docsPull: { state: 'closed', number: 4, repo: 'acme/docs' }, context },
      service: { get: [{ id: 'job-7', status: 'completed', prLink: PR_LINK }] },
    });
    expect(await decided()).toEqual({
      kind: 'skip',
      notice:
        'Skipped: the docs pull request acme/docs#4 of this thread was closed without merging, so later pushes start no docs job. Ask with the trigger phrase, or run the workflow by hand, to start a new one.',
      held: { status: 'Docs PR closed unmerged: ask for docs to start again', memory: expect.any(Object) },
    });
    expect(reads).toEqual([['recall', true], ['moment'], ['changedFiles', sha(1)], ['docsPull', PR_LINK]]);
    expect(service).toEqual([['get', 'job-7']]);
  });

  it("sends nothing when the thread's memory cannot be read", async () => {
    const unreadable = new ActionFailure("Could not read this thread's comment.");
    const { decided, reads, service } = decider({ inputs: thread, reads: { memory: unreadable } });
    await expect(decided()).rejects.toBe(unreadable);
    expect(reads).toEqual([['recall', true]]);
    expect(service).toEqual([]);
  });

  it('sends nothing on a thread when the GitHub side cannot load', async () => {
    const { decided, service } = decider({ inputs: thread, loads: false });
    await expect(decided()).rejects.toThrow(
      "The GitHub side of the action could not load, so this thread's job cannot be looked up.",
    );
    expect(service).toEqual([]);
  });
});

describe('the prompt', () => {
  const request = commentEvent(3, '/docs document the --dry-run flag');

  it('is the standing prompt, then the request, then the context section', async () => {
    const { decided, reads } = decider({
      inputs: { trigger: '/docs', context: 'auto' },
      event: request,
      reads: { access: { permission: 'write', role: 'write' }, context: '## What changed\nPR #3.' },
    });
    expect(await decided()).toEqual(
      created('Document the change.\n\ndocument the --dry-run flag\n\n## What changed\nPR #3.'),
    );
    expect(reads).toEqual([
      ['accessOf', 'octocat'],
      ['context', undefined, 20000],
    ]);
  });

  it("has this run's secrets replaced by *** before it leaves, with a warning that names none of them", async () => {
    const secret = 'ghs_DecideSecret000000000000000000000009';
    redactAlso(secret);
    const { decided, log } = decider({
      inputs: { context: 'auto' },
      reads: { context: `The diff sets GITHUB_TOKEN=${secret} in ci.yml.` },
    });
    expect(await decided()).toMatchObject({
      prompt: 'Document the change.\n\nThe diff sets GITHUB_TOKEN=*** in ci.yml.',
    });
    expect(log).toEqual([
      'warning: The prompt held a secret of this run (the API key, a GitHub token, a proxy password or a runner token); it was replaced by *** before the prompt was sent.',
    ]);
  });
});

describe('the order of the spending rules (docs/design.md §3.11)', () => {
  const atMerge = { thread: 'true', followUp: 'at-merge', trigger: '/docs', budget: '5' };
  const note: ThreadNote = { ...NOTE, uses: 1, requests: { floor: 100, settled: [] } };
  const activeJob = { get: [{ id: 'job-7', status: 'active' as const, prLink: PR_LINK }] };
  /** A writer's `/docs` request on the thread that no run has sent yet. */
  const owed = {
    id: 150,
    body: '/docs mention the new flag',
    author: 'octocat',
    bot: false,
    url: 'https://github.com/acme/app/pull/3#issuecomment-150',
    review: false,
  };
  const push = pushEvent(sha(2), { before: sha(1) });

  it('the policy holds a push before anything is compared or read of the service', async () => {
    const { decided, reads, service } = decider({
      event: push,
      inputs: atMerge,
      reads: { memory: { note }, moment: {} },
    });
    expect(await decided()).toMatchObject({ kind: 'skip', notice: expect.stringContaining('at-merge') });
    expect(reads).toEqual([['recall', true], ['threadComments'], ['moment']]);
    expect(service).toEqual([]);
  });

  it('owed requests go past the policy, overtaken and nothing new, never past the budget', async () => {
    const reads: ReadAnswers = {
      memory: { note },
      moment: { newerHead: sha(3) },
      changed: { files: [] },
      comments: [owed],
      access: { permission: 'write', role: 'write' },
    };
    const going = decider({ event: push, inputs: atMerge, reads, service: activeJob });
    expect(await going.decided()).toMatchObject({ kind: 'go', mode: { kind: 'follow-up', jobId: 'job-7' } });
    // Read only to know whether the push is the merge it tells, to record it: a newer head holds
    // nothing owed back.
    expect(going.reads.map(([name]) => name)).toContain('moment');
    expect(going.reads.map(([name]) => name)).not.toContain('changedFiles');

    const spent = decider({
      event: push,
      inputs: { ...atMerge, budget: '1' },
      reads,
      service: activeJob,
    });
    expect(await spent.decided()).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining('budget of 1 quota use'),
    });
  });

  it('a thread without status on a push no pull request contains is refused once GitHub says so, before the service is read; a policy that holds it still does', async () => {
    const branch = { memory: {}, moment: { branch: true } };
    const refused = decider({ event: push, inputs: { thread: 'true' }, reads: branch });
    await expect(refused.decided()).rejects.toThrow(
      new ActionFailure(
        'Input "status" is false, but thread is true and this push to the branch "main" is in no pull request: a branch\'s thread keeps its job in this step\'s commit statuses, so without status every push to it would start a new job. Set status: true (with statuses: write) to keep one job for the branch, or run the thread\'s step only on pull request events. Nothing was sent.',
      ),
    );
    expect(refused.reads).toEqual([['recall', true], ['moment']]);
    expect(refused.service).toEqual([]);
    const held = decider({ event: push, inputs: { thread: 'true', followUp: 'on-request' }, reads: branch });
    expect(await held.decided()).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining('on-request'),
    });
  });

  it('a push overtaken by a newer head is held before what changed is read', async () => {
    const { decided, reads } = decider({
      event: push,
      inputs: { thread: 'true' },
      reads: { memory: { note }, moment: { newerHead: sha(3) }, changed: { files: [] } },
    });
    expect(await decided()).toMatchObject({ kind: 'skip', notice: expect.stringContaining('moved on') });
    expect(reads.map(([name]) => name)).not.toContain('changedFiles');
  });

  it('nothing new holds a push before paths is matched, and before the service is read', async () => {
    const { decided, service } = decider({
      event: push,
      inputs: { thread: 'true', paths: 'docs/**' },
      reads: { memory: { note }, moment: {}, changed: { files: [], compared: true } },
    });
    expect(await decided()).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining('nothing changed since job job-7 last looked'),
    });
    expect(service).toEqual([]);
  });

  it('under at-merge the merge is news even with nothing changed; under every-push it is not', async () => {
    const merge = {
      memory: { note },
      moment: { merge: true },
      changed: { files: [], compared: true as const },
    };
    const news = decider({ event: push, inputs: atMerge, reads: merge, service: activeJob });
    expect(await news.decided()).toMatchObject({ kind: 'go', mode: { kind: 'follow-up' } });
    const stale = decider({ event: push, inputs: { thread: 'true' }, reads: merge, service: activeJob });
    expect(await stale.decided()).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining('nothing changed since job job-7 last looked'),
    });
  });

  it('the budget is checked last, once the job is read: a re-run that only waits is never stopped by it', async () => {
    const spent: ThreadNote = { ...note, uses: 5, run: 42, runs: [{ run: 42, attempt: 1, job: 'job-7' }] };
    const resume = decider({
      event: push,
      inputs: atMerge,
      runAttempt: 2,
      reads: { memory: { note: spent }, moment: {} },
    });
    expect(await resume.decided()).toMatchObject({ kind: 'go', mode: { kind: 'resume', jobId: 'job-7' } });
    const asked = decider({
      event: commentEvent(3, '/docs mention the flag', { id: 160 }),
      inputs: atMerge,
      reads: { memory: { note: spent }, access: { permission: 'write', role: 'write' } },
      service: activeJob,
    });
    expect(await asked.decided()).toMatchObject({ kind: 'skip', notice: expect.stringContaining('budget') });
    expect(asked.service).toEqual([['get', 'job-7']]);
  });
});
