// The kept comment, continued: every way a job ends updates it. (Split from
// e2e.github-comment.test.ts so jest runs the files side by side; GitHub's faults are in
// e2e.github-comment-faults.test.ts.)
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  run,
  runAndSignal,
  warnings,
} from '../__fixtures__/e2e.js';
import { gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('every path that knows a job updates it', () => {
  it('a failed job: the comment says so, the step fails with the job error alone', async () => {
    const service = await emulator({ final: { status: 'failed' } });
    const gh = await github();
    const { pr } = world(gh);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expectFailure(result, 'failed.');
    expect(pr.comments[0]?.body).toContain('❌ **Failed**');
    expect(result.outputs.commentUrl).toBeDefined();
  });

  it('a timeout', async () => {
    const service = await emulator({ activePolls: 100 });
    const gh = await github();
    const { pr } = world(gh);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true', timeout: '3s' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expectFailure(result, 'did not finish within 3s');
    expect(pr.comments[0]?.body).toContain('⌛ **Timed out**');
  });

  it('wait: false: written once, saying the job goes on', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true', wait: 'false' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    expect(gh.count('createComment')).toBe(1);
    expect(gh.count('updateComment')).toBe(0);
    expect(pr.comments[0]?.body).toContain('⏩ **Started**');
  });

  it('a cancellation while waiting, within the exit budget', async () => {
    const service = await emulator({ activePolls: 100 });
    const gh = await github();
    const { pr } = world(gh);
    const { result, exitMs } = await runAndSignal(
      {
        inputs: inputsFor(service, { comment: 'true' }),
        env: gitHubEnv(gh),
        event: pullRequestEvent(pr.number),
      },
      () => pr.comments.length > 0,
      'SIGINT',
    );
    expectFailure(result, 'The step was cancelled (SIGINT) while waiting');
    expect(result.outputs).toMatchObject({ status: 'active', commentUrl: expect.any(String) });
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('🛑 **Cancelled**');
    // The contract is 2 s; the bound leaves room for a loaded machine.
    expect(exitMs).toBeLessThan(3000);
  });

  it('a cancellation while GitHub is slow: outputs, summary and the error first, out within the budget', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    gh.delay('updateComment', 20_000);
    const { result, exitMs } = await runAndSignal(
      {
        inputs: inputsFor(service, { comment: 'true' }),
        env: gitHubEnv(gh),
        event: pullRequestEvent(pr.number),
      },
      () => gh.count('updateComment') > 0,
      'SIGTERM',
    );
    expect(exitMs).toBeLessThan(3000);
    // The job completed before the signal: its outputs and summary are all there.
    expect(result.outputs).toMatchObject({ status: 'completed', prLink: expect.stringContaining('/pull/') });
    expect(result.summary).toContain('completed');
  });

  it('a follow-up the service may not have taken: the comment still says what happened', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    service.script('message', { status: 502 });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true', jobId: 'job_earlier', prompt: 'Also add examples' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expectFailure(result, 'the message may have reached the job anyway');
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain(
      "⚠️ **The latest run's follow-up to job `job_earlier` was not confirmed by the service**",
    );
    expect(pr.comments[0]?.body).toContain('the message may have reached the job anyway');
  });

  it('a first post still in flight when the job ends: the last update waits for it, one comment', async () => {
    const service = await emulator({ activePolls: 0 });
    const gh = await github();
    const { pr } = world(gh);
    gh.delay('createComment', 3_000);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('✅ **Completed**');
    expect(gh.count('createComment')).toBe(1);
  });
});
