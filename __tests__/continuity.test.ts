// Which way a run goes with a job, from what GitHub remembers (a stand-in for the GitHub side)
// and what the service says of the thread's job (the emulator, over real sockets): resume a
// re-run, follow the thread's job up, or start a new one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentClient } from '../src/client.js';
import { planJob, type Memory, type PlanRequest } from '../src/continuity.js';
import { connect } from '../src/dispatcher.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import type { DocsPullState, Recall } from '../src/github/report.js';
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
const request: PlanRequest = { prompt: 'Document it', projectId: 'p', thread: true, runId: 77, attempt: 1 };

function memory(recall: Recall, docs: DocsPullState = 'open'): Memory & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    recall: () => Promise.resolve(recall),
    docsPullState: (link) => {
      asked.push(link);
      return Promise.resolve(docs);
    },
  };
}

/** A job the service holds, in `status`, with a docs pull request unless told. */
async function jobIn(status: string, prLink: string | null = 'https://github.com/acme/docs/pull/4') {
  service.script('create', { job: { status, prLink } });
  return (await client.createJob('seed')).id;
}

describe('a thread', () => {
  it("follows up the thread's job while it is active, with what changed since its last head", async () => {
    const id = await jobIn('active', null);
    const log = recorder();
    const plan = await planJob(
      request,
      memory({ note: { job: id, head: HEAD, run: 1, attempt: 1 } }),
      client,
      log,
    );
    expect(plan).toEqual({ mode: { kind: 'follow-up', jobId: id }, since: HEAD });
    expect(log.lines).toEqual([`info: Agent job ${id} of the thread is active: this run follows it up.`]);
  });

  it('follows up a completed job while its docs pull request is open; a new job once it is merged', async () => {
    const id = await jobIn('completed');
    const open = memory({ note: { job: id, run: 1, attempt: 1 } }, 'open');
    expect((await planJob(request, open, client, recorder())).mode).toEqual({ kind: 'follow-up', jobId: id });
    expect(open.asked).toEqual(['https://github.com/acme/docs/pull/4']);
    const log = recorder();
    const merged = memory({ note: { job: id, run: 1, attempt: 1 } }, 'closed');
    expect((await planJob(request, merged, client, log)).mode).toEqual({ kind: 'create', projectId: 'p' });
    expect(log.lines).toEqual([
      'info: The docs pull request of the thread was merged or closed: a new job is started.',
    ]);
  });

  it('starts a new job when the docs pull request cannot be read (never a follow-up into it)', async () => {
    const id = await jobIn('completed');
    const plan = await planJob(
      request,
      memory({ note: { job: id, run: 1, attempt: 1 } }, 'unknown'),
      client,
      recorder(),
    );
    expect(plan.mode.kind).toBe('create');
  });

  it.each([
    ['failed', 'failed: a new job is started.'],
    ['archived', 'was archived: a new job is started.'],
  ])("starts a new job when the thread's job %s", async (status, said) => {
    const id = await jobIn(status);
    const log = recorder();
    expect(
      (await planJob(request, memory({ note: { job: id, run: 1, attempt: 1 } }), client, log)).mode.kind,
    ).toBe('create');
    expect(log.lines).toEqual([`info: Agent job ${id} of the thread ${said}`]);
  });

  it("starts a new job when the thread's job completed without a pull request, or is gone (404)", async () => {
    const id = await jobIn('completed', null);
    expect(
      (await planJob(request, memory({ note: { job: id, run: 1, attempt: 1 } }), client, recorder())).mode
        .kind,
    ).toBe('create');
    const log = recorder();
    const gone = memory({ note: { job: 'job_gone', run: 1, attempt: 1 } });
    expect((await planJob(request, gone, client, log)).mode.kind).toBe('create');
    expect(log.lines).toEqual([
      'info: Agent job job_gone of the thread is no longer known to the service: a new job is started.',
    ]);
  });

  it("warns and starts a new job when the service cannot say how the thread's job is", async () => {
    const id = await jobIn('active');
    service.script('get', { status: 503, json: { error: 'down' } });
    const log = recorder();
    expect(
      (await planJob(request, memory({ note: { job: id, run: 1, attempt: 1 } }), client, log)).mode.kind,
    ).toBe('create');
    expect(log.lines[0]).toMatch(
      /^warning: Could not read agent job \w+ of the thread \(HTTP 503 "down"\): a new job is started\.$/,
    );
  });

  it("follows up the branch's job, from the status on the push's before commit", async () => {
    const id = await jobIn('active');
    const log = recorder();
    const plan = await planJob(request, memory({ branch: { job: id, run: 5 } }), client, log);
    expect(plan).toEqual({ mode: { kind: 'follow-up', jobId: id } });
    expect(log.lines).toEqual([`info: Agent job ${id} of the branch is active: this run follows it up.`]);
  });

  it('is ignored without thread: true, and by a job given as jobId', async () => {
    const id = await jobIn('active');
    const recall = memory({ note: { job: id, run: 1, attempt: 1 } });
    expect((await planJob({ ...request, thread: false }, recall, client, recorder())).mode.kind).toBe(
      'create',
    );
    expect((await planJob({ ...request, jobId: 'job_x' }, recall, client, recorder())).mode).toEqual({
      kind: 'follow-up',
      jobId: 'job_x',
    });
  });
});

describe('a re-run', () => {
  it('resumes the job an earlier attempt started, from the comment or from the status', async () => {
    const again = { ...request, attempt: 2 };
    const log = recorder();
    const fromNote = await planJob(
      again,
      memory({ note: { job: 'job_a1', run: 77, attempt: 1 } }),
      client,
      log,
    );
    expect(fromNote).toEqual({ mode: { kind: 'resume', jobId: 'job_a1' } });
    expect(log.lines).toEqual([
      'info: Attempt 2 of this run: resuming agent job job_a1, which an earlier attempt started, instead of starting another.',
    ]);
    const fromStatus = await planJob(
      again,
      memory({ status: { job: 'job_s1', run: 77 } }),
      client,
      recorder(),
    );
    expect(fromStatus.mode).toEqual({ kind: 'resume', jobId: 'job_s1' });
  });

  it("goes on as a new run, and says so, when nothing of this run's is found", async () => {
    const log = recorder();
    const other = memory({ note: { job: 'job_gone', run: 12, attempt: 1 }, status: { run: 77 } });
    const plan = await planJob({ ...request, attempt: 3, thread: false }, other, client, log);
    expect(plan.mode.kind).toBe('create');
    expect(log.lines).toEqual([
      'info: Attempt 3 of this run: no job of an earlier attempt was found on GitHub, so this attempt goes on as a new run.',
    ]);
  });

  it('says so when nothing is kept to resume from (comment and status off)', async () => {
    const log = recorder();
    expect((await planJob({ ...request, attempt: 2 }, undefined, client, log)).mode.kind).toBe('create');
    expect(log.lines).toEqual([
      'info: Attempt 2 of this run: nothing on GitHub can tell which job an earlier attempt may have started, so this attempt creates its own. With status: true (or comment: true), a re-run resumes it.',
    ]);
    const first = recorder();
    await planJob(request, undefined, client, first);
    expect(first.lines).toEqual([]);
  });

  it('asks nothing when nothing remembers (no GitHub side)', async () => {
    expect(await planJob({ ...request, attempt: 2 }, undefined, client, recorder())).toEqual({
      mode: { kind: 'create', projectId: 'p' },
    });
  });
});
