// The kept comment when the step is cancelled, through the bundle under Node 24 against both
// emulators: only a process can be sent the runner's SIGINT or SIGTERM. What it waits for never
// comes (a job still at work, a GitHub that holds its answer), so its exit shows it did not wait.
// Every other way a job ends is in run.github-comment-ends.test.ts, in process.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  expectFailure,
  gitHubEmulators,
  pullRequestRun,
  runAndSignal,
} from '../__fixtures__/e2e.js';
import { world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('every path that knows a job updates it', () => {
  it('a cancellation while waiting, within the exit budget', async () => {
    const service = await emulator({ activePolls: 100 });
    const gh = await github();
    const { pr } = world(gh);
    const { result } = await runAndSignal(
      pullRequestRun(service, gh, pr.number, { comment: 'true' }),
      () => pr.comments.length > 0,
      'SIGINT',
    );
    expectFailure(result, 'The step was cancelled (SIGINT) while waiting');
    expect(result.outputs).toMatchObject({ status: 'active', commentUrl: expect.any(String) });
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('🛑 **Cancelled**');
  });

  it('a cancellation while GitHub is slow: outputs, summary and the error first, out within the budget', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    // GitHub never answers the last update: the step ends on its own budget, not on GitHub.
    gh.hold('updateComment');
    const { result } = await runAndSignal(
      pullRequestRun(service, gh, pr.number, { comment: 'true' }),
      () => gh.count('updateComment') > 0,
      'SIGTERM',
    );
    expect(result.signal).toBeNull();
    // The job completed before the signal: its outputs and summary are all there.
    expect(result.outputs).toMatchObject({ status: 'completed', prLink: expect.stringContaining('/pull/') });
    expect(result.summary).toContain('completed');
  });
});
