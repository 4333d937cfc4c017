// Where the kept comment goes, per event, through the bundle under Node 24 against the service's
// emulator and the GitHub emulator. (Split from e2e.github-comment.test.ts so jest runs the halves
// side by side.)
import { describe, expect, it } from '@jest/globals';
import { emulators, gitHubEmulators, inputsFor, notices, run } from '../__fixtures__/e2e.js';
import { APP, gitHubEnv, pushEvent, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('where the comment goes', () => {
  it('on a push, the pull request the pushed commit was merged by', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const sha = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    // An open pull request that also contains the commit comes first in GitHub's list.
    const other = gh.thread(APP, { commits: [sha] });
    const merged = gh.thread(APP, { mergeCommitSha: sha });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pushEvent(sha),
    });
    expect(result.code).toBe(0);
    expect(merged.comments).toHaveLength(1);
    expect(other.comments).toHaveLength(0);
    expect(result.outputs.commentUrl).toContain(`/pull/${merged.number}#issuecomment-`);
  });

  it('on an issue comment, that issue', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const issue = gh.thread(APP, { pull: false });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: {
        name: 'issue_comment',
        payload: { issue: { number: issue.number }, comment: { body: '@docs-bot please' } },
      },
    });
    expect(result.code).toBe(0);
    expect(issue.comments).toHaveLength(1);
    expect(result.outputs.commentUrl).toContain(`/issues/${issue.number}#issuecomment-`);
  });

  it('nowhere, without a request, on an event with nothing to comment on', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: { name: 'workflow_dispatch', payload: { inputs: {} } },
    });
    expect(result.code).toBe(0);
    expect(gh.requests).toEqual([]);
    expect(notices(result)).toEqual([
      'No comment posted: a workflow_dispatch run has no pull request or issue.',
    ]);
    expect(result.outputs.commentUrl).toBeUndefined();
  });

  it('nowhere, with a notice, on a push whose commit is in no pull request', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pushEvent('0123456789abcdef0123456789abcdef01234567'),
    });
    expect(result.code).toBe(0);
    expect(gh.requests.map((r) => r.route)).toEqual(['pullsOfCommit']);
    expect(notices(result)).toEqual([
      'No comment posted: no pull request contains the pushed commit 0123456789ab.',
    ]);
  });
});
