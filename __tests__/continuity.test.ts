// Which way a run goes with a job, from what GitHub remembers (a value, as the GitHub side reads
// it) and what the service says of the thread's job (the emulator, over real sockets): resume a
// re-run, follow the thread's job up, start a new one, or — after the maintainers closed the
// docs pull request unmerged — nothing. A fault never decides: reads are retried, then fail.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentClient } from '../src/service/client.js';
import { planJob, type Plan, type PlanRequest } from '../src/decide/continuity.js';
import { connect } from '../src/service/dispatcher.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import type { DocsPull, Memory } from '../src/core/ports.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { recorder } from '../__fixtures__/log.js';

const KEY = 'mint_continuity_key';
let service: Emulator;
let client: AgentClient;
const { dispatcher } = connect('http://127.0.0.1');
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY });
  client = new AgentClient({
    baseUrl: service.url,
    projectId: 'p',
    apiKey: KEY,
    dispatcher,
    userAgent: 'test',
  });
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  await service.close();
  await dispatcher.close();
});

const HEAD = 'a'.repeat(40);
const request: PlanRequest = {
  prompt: 'Document it',
  projectId: 'p',
  thread: true,
  runId: 77,
  attempt: 1,
  asked: false,
};
const OPEN: DocsPull = { state: 'open', number: 4, repo: 'acme/docs' };

/**
 * Plans with `memory` as GitHub holds it, the docs pull request in `docs` (asked for by link,
 * recorded in `links`), on a virtual clock.
 */
async function plan(
  given: PlanRequest,
  memory: Memory | undefined,
  options: { docs?: DocsPull | Error; log?: ReturnType<typeof recorder>; links?: string[] } = {},
): Promise<Plan> {
  const clock = new VirtualClock();
  return planJob(given, memory, {
    client,
    docsPull: (link) => {
      options.links?.push(link);
      const docs = options.docs ?? OPEN;
      return docs instanceof Error ? Promise.reject(docs) : Promise.resolve(docs);
    },
    log: options.log ?? recorder(),
    clock,
    deadline: clock.now() + 600_000,
    context: { operation: 'get', baseUrl: service.url, projectId: 'p' },
    signal: new AbortController().signal,
  });
}

const modeOf = (p: Plan) => (p.kind === 'go' ? p.mode : undefined);

/** A job the service holds, in `status`, with a docs pull request unless told. */
async function jobIn(status: string, prLink: string | null = 'https://github.com/acme/docs/pull/4') {
  service.script('create', { job: { status, prLink } });
  return (await client.createJob('seed')).id;
}

describe('a thread', () => {
  it("follows up the thread's job while it is active, with what changed since its last head", async () => {
    const id = await jobIn('active', null);
    const log = recorder();
    const planned = await plan(request, { note: { job: id, head: HEAD, run: 1, attempt: 1 } }, { log });
    expect(planned).toEqual({
      kind: 'go',
      mode: { kind: 'follow-up', jobId: id },
      since: HEAD,
      thread: { jobId: id, prLink: null },
    });
    expect(log.lines).toEqual([`info: Agent job ${id} of the thread is active: this run follows it up.`]);
  });

  it('follows up a completed job while its docs pull request is open; a new job once it is merged', async () => {
    const id = await jobIn('completed');
    const links: string[] = [];
    const note = { note: { job: id, run: 1, attempt: 1 } };
    expect(modeOf(await plan(request, note, { links }))).toEqual({ kind: 'follow-up', jobId: id });
    expect(links).toEqual(['https://github.com/acme/docs/pull/4']);
    const log = recorder();
    const merged = await plan(request, note, { docs: { ...OPEN, state: 'merged' }, log });
    expect(modeOf(merged)).toEqual({ kind: 'create', projectId: 'p' });
    expect(log.lines).toEqual([
      'info: The docs pull request acme/docs#4 of the thread was merged: a new job is started.',
    ]);
  });

  it("keeps the maintainers' no: a docs pull request closed unmerged ends the pull request's thread until someone asks", async () => {
    const id = await jobIn('completed');
    const note = { note: { job: id, run: 1, attempt: 1 } };
    const closed = { docs: { ...OPEN, state: 'closed' } as DocsPull };
    expect(await plan(request, note, closed)).toEqual({
      kind: 'skip',
      notice:
        'Skipped: the docs pull request acme/docs#4 of this thread was closed without merging, so later pushes start no docs job. Ask with the trigger phrase, or run the workflow by hand, to start a new one.',
      status: 'Docs PR closed unmerged: ask for docs to start again',
    });
    // The status says how to ask, in the phrase the workflow reads.
    expect(await plan({ ...request, trigger: '/docs' }, note, closed)).toMatchObject({
      status: 'Docs PR closed unmerged: ask with /docs to start again',
    });
    expect(modeOf(await plan({ ...request, asked: true }, note, closed))?.kind).toBe('create');
    // A branch has no one to ask: its next push starts afresh.
    expect(modeOf(await plan(request, { branch: { job: id, run: 1, since: HEAD } }, closed))?.kind).toBe(
      'create',
    );
  });

  it('fails, sending nothing, when the docs pull request cannot be read: never a second job beside it', async () => {
    const id = await jobIn('completed');
    const unreadable = new Error('Could not read the docs pull request acme/docs#4');
    await expect(plan(request, { note: { job: id, run: 1, attempt: 1 } }, { docs: unreadable })).rejects.toBe(
      unreadable,
    );
  });

  it('starts a new job, with a warning, when the docs pull request is not one on this GitHub', async () => {
    const id = await jobIn('completed');
    const log = recorder();
    const planned = await plan(
      request,
      { note: { job: id, run: 1, attempt: 1 } },
      { docs: { state: 'elsewhere' }, log },
    );
    expect(modeOf(planned)?.kind).toBe('create');
    expect(log.lines[0]).toMatch(
      /^warning: The docs pull request of agent job \w+ is not a pull request on this GitHub/,
    );
  });

  it.each([
    ['failed', 'failed: a new job is started.'],
    ['archived', 'was archived: a new job is started.'],
  ])("starts a new job when the thread's job %s", async (status, said) => {
    const id = await jobIn(status);
    const log = recorder();
    expect(modeOf(await plan(request, { note: { job: id, run: 1, attempt: 1 } }, { log }))?.kind).toBe(
      'create',
    );
    expect(log.lines).toEqual([`info: Agent job ${id} of the thread ${said}`]);
  });

  it("starts a new job when the thread's job completed without a pull request, or is gone (404)", async () => {
    const id = await jobIn('completed', null);
    expect(modeOf(await plan(request, { note: { job: id, run: 1, attempt: 1 } }))?.kind).toBe('create');
    const log = recorder();
    expect(
      modeOf(await plan(request, { note: { job: 'job_gone', run: 1, attempt: 1 } }, { log }))?.kind,
    ).toBe('create');
    expect(log.lines).toEqual([
      'info: Agent job job_gone of the thread is no longer known to the service: a new job is started.',
    ]);
  });

  it("waits out a passing fault reading the thread's job: one 502 does not fork the thread", async () => {
    const id = await jobIn('active');
    service.script('get', { status: 502, json: { error: 'bad gateway' } });
    const log = recorder();
    const planned = await plan(request, { note: { job: id, run: 1, attempt: 1 } }, { log });
    expect(modeOf(planned)).toEqual({ kind: 'follow-up', jobId: id });
    expect(log.lines[0]).toMatch(
      /^warning: Could not read agent job \w+ of the thread \(HTTP 502 "bad gateway"\); trying again\.$/,
    );
  });

  it("fails, sending nothing, when the service still cannot say how the thread's job is", async () => {
    const id = await jobIn('active');
    const down = { status: 503, json: { error: 'down' } };
    service.script('get', down, down, down, down, down);
    await expect(plan(request, { note: { job: id, run: 1, attempt: 1 } })).rejects.toThrow(
      /^Could not read agent job \w+, which the thread follows \(HTTP 503 "down"\)\. Nothing was sent, so the thread does not get a second job/,
    );
  });

  it("reads the thread's job a bounded number of times, whatever Retry-After says", async () => {
    const id = await jobIn('active');
    const before = service.count('get');
    const soon = { status: 503, json: { error: 'down' }, headers: { 'Retry-After': '1' } };
    service.script('get', soon, soon, soon, soon, soon);
    await expect(plan(request, { note: { job: id, run: 1, attempt: 1 } })).rejects.toThrow(
      /^Could not read agent job \w+, which the thread follows \(HTTP 503 "down"\)/,
    );
    expect(service.count('get') - before).toBe(5);
  });

  it("follows up the branch's job, from its own status up the branch, with what changed since that commit", async () => {
    const id = await jobIn('active');
    const log = recorder();
    const planned = await plan(request, { branch: { job: id, run: 5, since: HEAD } }, { log });
    expect(planned).toMatchObject({ kind: 'go', mode: { kind: 'follow-up', jobId: id }, since: HEAD });
    expect(log.lines).toEqual([`info: Agent job ${id} of the branch is active: this run follows it up.`]);
  });

  it('is ignored without thread: true, and by a job given as jobId', async () => {
    const id = await jobIn('active');
    const note = { note: { job: id, run: 1, attempt: 1 } };
    expect(modeOf(await plan({ ...request, thread: false }, note))?.kind).toBe('create');
    expect(await plan({ ...request, jobId: 'job_x' }, note)).toEqual({
      kind: 'go',
      mode: { kind: 'follow-up', jobId: 'job_x' },
    });
  });
});

describe('a re-run', () => {
  it('resumes the job an earlier attempt started, from the comment or from the status', async () => {
    const again = { ...request, attempt: 2 };
    const log = recorder();
    const fromNote = await plan(again, { note: { job: 'job_a1', run: 77, attempt: 1 } }, { log });
    expect(fromNote).toEqual({ kind: 'go', mode: { kind: 'resume', jobId: 'job_a1' } });
    expect(log.lines).toEqual([
      'info: Attempt 2 of this run: resuming agent job job_a1, which an earlier attempt started, instead of starting another.',
    ]);
    const fromStatus = await plan(again, { status: { job: 'job_s1', run: 77 } });
    expect(modeOf(fromStatus)).toEqual({ kind: 'resume', jobId: 'job_s1' });
  });

  it("finds its own run among the thread's recent runs, after other runs moved the thread on", async () => {
    const note = {
      job: 'job_new',
      run: 80,
      attempt: 1,
      runs: [
        { run: 80, attempt: 1, job: 'job_new' },
        { run: 77, attempt: 1, job: 'job_old' },
      ],
    };
    expect(modeOf(await plan({ ...request, attempt: 2 }, { note }))).toEqual({
      kind: 'resume',
      jobId: 'job_old',
    });
  });

  it("goes on as a new run, and says so, when nothing of this run's is found", async () => {
    const log = recorder();
    const other = { note: { job: 'job_gone', run: 12, attempt: 1 }, status: { run: 77 } };
    const planned = await plan({ ...request, attempt: 3, thread: false }, other, { log });
    expect(modeOf(planned)?.kind).toBe('create');
    expect(log.lines).toEqual([
      'info: Attempt 3 of this run: no job of an earlier attempt was found on GitHub, so this attempt goes on as a new run.',
    ]);
  });

  it('says so when nothing is kept to resume from (comment and status off)', async () => {
    const log = recorder();
    expect(modeOf(await plan({ ...request, attempt: 2 }, undefined, { log }))?.kind).toBe('create');
    expect(log.lines).toEqual([
      'info: Attempt 2 of this run: nothing on GitHub can tell which job an earlier attempt may have started, so this attempt creates its own. With status: true (or comment: true), a re-run resumes it.',
    ]);
    const first = recorder();
    await plan(request, undefined, { log: first });
    expect(first.lines).toEqual([]);
  });

  it('asks nothing when nothing remembers (no GitHub side)', async () => {
    expect(await plan({ ...request, attempt: 2 }, undefined)).toEqual({
      kind: 'go',
      mode: { kind: 'create', projectId: 'p' },
    });
  });
});
