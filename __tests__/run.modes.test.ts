// The modes beyond one-shot creation (docs/design.md §2 `wait`, `jobId`; §4 `job`), end to end:
// run() in process, as the runner starts a step, against the emulator over real sockets.
import { describe, expect, it } from '@jest/globals';
import type { Emulator } from '../emulators/server.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { emulators, errors, expectFailure, inputsFor, runHere as run } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 0 });

/** A job the service already has, made the way a workflow's earlier step would. */
async function existingJob(service: Emulator): Promise<string> {
  const first = await run({ inputs: inputsFor(service) });
  expect(first.code).toBe(0);
  return first.outputs.jobId ?? '';
}

describe('follow-up (jobId with prompt)', () => {
  it("sends the prompt to the earlier step's job and waits for it again", async () => {
    // Active for a poll after the message: a job never seen active would be waited on for 30 s.
    const service = await emulator({ activePolls: 1 });
    const id = await existingJob(service);
    const firstLink = service.jobs.get(id)?.prLink;
    const result = await run({
      inputs: inputsFor(service, { jobId: id, prompt: 'Also add error-handling examples' }),
    });
    expect(result.code).toBe(0);
    const message = service.requests.find((r) => r.route === 'message');
    expect(message).toMatchObject({ jobId: id, json: { prompt: 'Also add error-handling examples' } });
    expect(service.count('create')).toBe(1);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'completed', prLink: firstLink });
    expect(result.stdout).toContain(`Agent job ${id} took the follow-up (active).`);
  });

  it("does not take the previous run's result for the follow-up's", async () => {
    // As a service that takes messages asynchronously may: the reply to the message and the next
    // read still show the finished first run.
    const service = await emulator({ followUpLag: 2, activePolls: 1 });
    const id = await existingJob(service);
    const gets = service.count('get');
    const result = await run({ inputs: inputsFor(service, { jobId: id, prompt: 'more' }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Agent job ${id} is now active.`);
    expect(service.count('get') - gets).toBe(3);
  });

  it('reports a job that is done as done when the timeout is shorter than the wait for it to take the message', async () => {
    // The service never shows the job at work on the message (it took it at once, or not yet):
    // within a 5 s timeout it reads as finished, and that is what the step says, not a timeout.
    const service = await emulator({ followUpLag: 1000 });
    const id = await existingJob(service);
    const clock = new VirtualClock();
    const start = clock.now();
    const result = await run(
      { inputs: inputsFor(service, { jobId: id, prompt: 'more', timeout: '5s' }) },
      { clock },
    );
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'completed', mode: 'followed-up' });
    expect(result.stdout).toContain(
      'was not seen at work on the follow-up: this may be how it ended before the message.',
    );
    expect(result.stdout).toContain(`Agent job ${id} completed:`);
    expect(clock.now() - start).toBeLessThanOrEqual(5_000);
  });

  it('takes a reply to the message that names another job as a fault, never as this job', async () => {
    const service = await emulator();
    const id = await existingJob(service);
    service.script('message', { json: { id: 'job_someone_else', status: 'completed' } });
    const result = await run({ inputs: inputsFor(service, { jobId: id, prompt: 'more' }) });
    expectFailure(result, 'gave HTTP 200 with another job (job_someone_else) to the follow-up message');
    expect(errors(result)[0]).toContain(
      'the message may have reached the job anyway, so the action does not send it again',
    );
    expect(service.count('message')).toBe(1);
    expect(result.outputs).toEqual({ jobId: id, mode: 'followed-up', status: 'not-started', uses: '0' });
  });

  it('percent-encodes the job id in the path', async () => {
    const service = await emulator();
    service.script('message', { status: 404, json: { error: 'Job not found' } });
    await run({ inputs: inputsFor(service, { jobId: 'job/1?x', prompt: 'more' }) });
    expect(service.requests[0]?.path).toBe('/v2/agent/proj_docs/job/job%2F1%3Fx/message');
  });

  it('fails on a 404 with an error that names the job', async () => {
    const service = await emulator();
    const result = await run({ inputs: inputsFor(service, { jobId: 'job_missing', prompt: 'more' }) });
    expectFailure(result, 'Agent job job_missing was not found in project proj_docs');
    expect(service.count('message')).toBe(1);
    expect(result.outputs).toEqual({
      jobId: 'job_missing',
      mode: 'followed-up',
      status: 'not-started',
      uses: '0',
    });
  });

  it('with wait: false, sends it and ends at once', async () => {
    const service = await emulator();
    const id = await existingJob(service);
    const gets = service.count('get');
    const result = await run({ inputs: inputsFor(service, { jobId: id, prompt: 'more', wait: 'false' }) });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'active' });
    expect(service.count('get')).toBe(gets);
  });
});

describe('waiting on a job (jobId without prompt)', () => {
  it('polls the job at once and until it finishes, creating nothing', async () => {
    const service = await emulator({ activePolls: 1 });
    const started = await run({ inputs: inputsFor(service, { wait: 'false' }) });
    const id = started.outputs.jobId ?? '';
    const result = await run({ inputs: inputsFor(service, { jobId: id, prompt: '' }) });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'completed' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
    expect(result.stdout).toContain(`Agent job ${id} is active.`);
  });

  it('fails at once when the job does not exist (no 404 grace: it is not new)', async () => {
    const service = await emulator();
    const result = await run({ inputs: inputsFor(service, { jobId: 'job_gone', prompt: '' }) });
    expectFailure(result, 'Agent job job_gone was not found in project proj_docs');
    expect(service.count('get')).toBe(1);
    // The service knows no such job: no job was seen, and `status` says so, never empty.
    expect(result.outputs).toEqual({ jobId: 'job_gone', mode: 'given', status: 'not-started', uses: '0' });
  });

  it('sets status when the given job could not be read at all before the timeout', async () => {
    const service = await emulator();
    service.script('get', ...Array.from({ length: 20 }, () => ({ status: 503 })));
    const result = await run(
      { inputs: inputsFor(service, { jobId: 'job_unreadable', prompt: '', timeout: '30s' }) },
      { clock: new VirtualClock() },
    );
    expectFailure(result, 'Agent job job_unreadable did not finish within 30s (it could not be read)');
    expect(result.outputs).toEqual({
      jobId: 'job_unreadable',
      mode: 'given',
      status: 'not-started',
      uses: '0',
    });
  });

  it('with wait: false, reads the job once and reports it', async () => {
    const service = await emulator({ final: { status: 'failed' }, activePolls: 0 });
    const started = await run({ inputs: inputsFor(service, { wait: 'false' }) });
    const id = started.outputs.jobId ?? '';
    const first = await run({ inputs: inputsFor(service, { jobId: id, prompt: '', wait: 'false' }) });
    expectFailure(first, `Agent job ${id} failed.`);
    expect(first.outputs).toMatchObject({ jobId: id, status: 'failed' });
    expect(JSON.parse(first.outputs.job ?? '')).toMatchObject({ id, status: 'failed' });
  });
});
