// The kept comment, continued: every way a job ends updates it, with run() in this process
// against both emulators over real sockets (both checked against their published OpenAPI
// descriptions). A cancellation needs a process to signal: those paths are in
// e2e.github-comment-ends.test.ts. (Split from run.github-comment.test.ts so jest runs the files
// side by side; GitHub's faults are in run.github-comment-faults.test.ts.)
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  expectFailure,
  gitHubEmulators,
  pullRequestRun,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('every path that knows a job updates it', () => {
  it('a failed job: the comment says so, the step fails with the job error alone', async () => {
    const service = await emulator({ final: { status: 'failed' } });
    const gh = await github();
    const { pr } = world(gh);
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expectFailure(result, 'failed.');
    expect(pr.comments[0]?.body).toContain('❌ **Failed**');
    expect(result.outputs.commentUrl).toBeDefined();
  });

  it('a timeout', async () => {
    const service = await emulator({ activePolls: 100 });
    const gh = await github();
    const { pr } = world(gh);
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true', timeout: '3s' }));
    expectFailure(result, 'did not finish within 3s');
    expect(pr.comments[0]?.body).toContain('⌛ **Timed out**');
  });

  it('wait: false: written once, saying the job goes on', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true', wait: 'false' }));
    expect(result.code).toBe(0);
    expect(gh.count('createComment')).toBe(1);
    expect(gh.count('updateComment')).toBe(0);
    expect(pr.comments[0]?.body).toContain('⏩ **Started**');
  });

  it('a follow-up the service may not have taken: the comment still says what happened', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    service.script('message', { status: 502 });
    const result = await run(
      pullRequestRun(service, gh, pr.number, {
        comment: 'true',
        jobId: 'job_earlier',
        prompt: 'Also add examples',
      }),
    );
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
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('✅ **Completed**');
    expect(gh.count('createComment')).toBe(1);
  });
});
