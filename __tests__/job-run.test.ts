// The run's record of its job, and the one place it becomes the step's error: which failure wins,
// and what a cancellation says at each stage of the request.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import { Cancelled } from '../src/execute/cancel.js';
import { ActionFailure } from '../src/service/errors.js';
import { readInputs } from '../src/decide/inputs.js';
import { JobRun } from '../src/execute/job-run.js';

function stepWith(given: Record<string, string> = {}): { step: JobRun; clock: VirtualClock } {
  const clock = new VirtualClock();
  const step = new JobRun(clock, new AbortController().signal);
  const values: Record<string, string> = {
    prompt: 'Update the SDK pages',
    projectId: 'proj',
    apiKey: 'mint_job_run_key',
    baseUrl: 'https://api.example.com',
    pollInterval: '10s',
    wait: 'true',
    timeout: '10m',
    ...given,
  };
  step.accepted(readInputs((name) => values[name] ?? ''));
  return { step, clock };
}

const job = (status: string) => ({ id: 'job_1', status });
const SIGTERM = new Cancelled('SIGTERM');

describe('JobRun', () => {
  it('succeeds with a completed job, and counts the time waited until the clock stops', () => {
    const { step, clock } = stepWith();
    step.sendingFor({ kind: 'create', projectId: 'proj' });
    step.started({ id: 'job_1', job: job('active'), createdAt: clock.now() });
    clock.time += 65_000;
    step.ended({ job: job('completed'), timedOut: false });
    step.stopClock();
    // The summary and the comment, written a little apart, say the same time.
    clock.time += 1500;
    expect(step.failure).toBeUndefined();
    expect(step.outcome({})).toEqual({
      jobId: 'job_1',
      job: job('completed'),
      confirmed: true,
      failure: undefined,
      timedOut: false,
      waitedMs: 65_000,
      memory: {},
      uses: 1,
      // When the clock stopped, not when the outcome was asked for.
      endedAt: clock.time - 1500,
    });
  });

  it('confirms a job only once the service accepted it; a follow-up refused names the job but does not confirm it', () => {
    const { step } = stepWith();
    step.sendingFor({ kind: 'follow-up', jobId: 'job_thread' });
    step.fail(new Error('429 past the timeout'));
    expect(step.outcome({})).toMatchObject({ jobId: 'job_thread', confirmed: false, uses: 0 });
    const waiting = stepWith().step;
    waiting.sendingFor({ kind: 'resume', jobId: 'job_earlier' });
    expect(waiting.outcome({})).toMatchObject({ jobId: 'job_earlier', confirmed: true, uses: 0 });
    // Waiting on a job that exists spends no use, even once it is read.
    waiting.started({ id: 'job_earlier', createdAt: -Infinity });
    expect(waiting.uses).toBe(0);
  });

  it("turns the job's end into the step's error: failed, archived, timed out", () => {
    const failed = stepWith().step;
    failed.ended({ job: job('failed'), timedOut: false });
    // Each with what to do next.
    expect(failed.failure).toMatch(
      /^Agent job job_1 failed\. Its record in the service's dashboard of project \S+ says why; re-run the workflow to start a new job, or send it a follow-up with jobId: job_1 and a prompt that says what to change\.$/,
    );

    const archived = stepWith().step;
    archived.ended({ job: job('archived'), timedOut: false });
    expect(archived.failure).toMatch(
      /^Agent job job_1 was archived before it completed\. Re-run the workflow/,
    );

    const late = stepWith().step;
    late.started({ id: 'job_1', job: job('active'), createdAt: 0 });
    late.ended({ job: job('active'), timedOut: true });
    expect(late.failure).toBe(
      "Agent job job_1 did not finish within 10m (last status: active); it goes on in the service. Raise the timeout input to wait longer (and the job's timeout-minutes above it), or wait for it in a later step with jobId: job_1.",
    );

    const unread = stepWith({ prompt: '', jobId: 'job_1' }).step;
    unread.started({ id: 'job_1', createdAt: -Infinity });
    unread.ended({ timedOut: true });
    expect(unread.failure).toContain('(it could not be read)');
  });

  it("keeps the first failure: a fault after the job's end does not hide a failed job", () => {
    const { step } = stepWith();
    step.ended({ job: job('failed'), timedOut: false });
    expect(step.fail(new ActionFailure("Could not set the step's outputs."))).toMatch(
      /^Agent job job_1 failed\. /,
    );
    expect(step.failure).toMatch(/^Agent job job_1 failed\. /);

    const faulted = stepWith().step;
    faulted.fail(new ActionFailure('The service rejected the API key (401).'));
    faulted.fail(new ActionFailure("Could not set the step's outputs."));
    expect(faulted.failure).toBe('The service rejected the API key (401).');
  });

  it("does not take a status read while waiting for the job's end", () => {
    // Right after a follow-up the service may still report the previous run's failed.
    const { step } = stepWith({ jobId: 'job_1' });
    step.sendingFor({ kind: 'follow-up', jobId: 'job_1' });
    step.started({ id: 'job_1', job: job('active'), createdAt: -Infinity });
    step.saw(job('failed'));
    expect(step.failure).toBeUndefined();
    expect(step.fail(SIGTERM)).toBe(
      'The step was cancelled (SIGTERM) while waiting; agent job job_1 goes on in the service (last status: failed).',
    );
  });

  it('says what a cancellation leaves behind at each stage of the request', () => {
    const before = stepWith().step;
    expect(before.fail(SIGTERM)).toBe(
      'The step was cancelled (SIGTERM) before anything was sent to the service.',
    );

    const creating = stepWith().step;
    creating.sendingFor({ kind: 'create', projectId: 'proj' });
    expect(creating.fail(SIGTERM)).toBe(
      'The step was cancelled (SIGTERM) before the service confirmed the job; a job may have been created in project proj: look for it before you re-run.',
    );

    const messaging = stepWith({ jobId: 'job_1' }).step;
    messaging.sendingFor({ kind: 'follow-up', jobId: 'job_1' });
    expect(messaging.fail(SIGTERM)).toBe(
      'The step was cancelled (SIGTERM) before the service confirmed the follow-up message; agent job job_1 may have taken it.',
    );

    const waitingOnId = stepWith({ prompt: '', jobId: 'job_1' }).step;
    waitingOnId.sendingFor({ kind: 'wait', jobId: 'job_1' });
    expect(waitingOnId.fail(new Cancelled('SIGINT'))).toBe(
      'The step was cancelled (SIGINT) while waiting; agent job job_1 goes on in the service.',
    );
  });

  it('names anything unexpected as such, and has an outcome without a job id that confirms nothing', () => {
    const { step } = stepWith();
    expect(step.fail(new TypeError('x is not a function'))).toBe(
      'The action failed unexpectedly: x is not a function. Re-run the job with debug logging enabled for details.',
    );
    expect(step.outcome({})).toMatchObject({ confirmed: false });
    expect(step.outcome({}).jobId).toBeUndefined();
  });
});
