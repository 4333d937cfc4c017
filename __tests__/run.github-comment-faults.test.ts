// The kept comment, continued: GitHub's faults never change the job's result. run() in this
// process against both emulators over real sockets. (Split from run.github-comment-ends.test.ts
// so jest runs the files side by side.)
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  pullRequestRun,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, gitHubEnv, pullRequestEvent, pushEvent, world } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('GitHub faults never change the job result', () => {
  it('a read-only token: one warning that names the permission, and the job succeeds', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh, false);
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(errors(result)).toEqual([]);
    expect(warnings(result)).toEqual([
      `Could not post the comment on ${APP}#${pr.number} (403 "Resource not accessible by integration"): githubToken needs pull-requests: write on ${APP}; grant it in the workflow's permissions block or to the token.`,
    ]);
    expect(result.outputs.status).toBe('completed');
    expect(result.outputs.commentUrl).toBeUndefined();
    // Given up after the 403: the end of the job does not try again.
    expect(gh.count('createComment')).toBe(1);
  });

  it("a fork's pull request: the read-only token is explained, the job's failure is the only error", async () => {
    const service = await emulator({ final: { status: 'failed' } });
    const gh = await github();
    const { pr } = world(gh, false);
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number, 'contributor/app'),
    });
    expectFailure(result, 'failed.');
    expect(warnings(result)).toHaveLength(1);
    expect(warnings(result)[0]).toContain("on a pull request from a fork, the workflow's token is read-only");
  });

  it('a 502 on the first post: a warning, and the end of the job posts it', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    gh.fail('createComment', { status: 502, message: 'Server Error' });
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(warnings(result)).toHaveLength(1);
    expect(warnings(result)[0]).toContain('GitHub answered 502 "Server Error"');
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]?.body).toContain('✅ **Completed**');
  });

  it('a push whose pull request could not be looked up: asked again when the job ends', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const sha = 'b1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const merged = gh.thread(APP, { mergeCommitSha: sha });
    gh.fail('pullsOfCommit', { status: 502, message: 'Server Error' });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pushEvent(sha),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toHaveLength(1);
    expect(warnings(result)[0]).toContain('Could not find the pull request the pushed commit came from');
    expect(gh.count('pullsOfCommit')).toBe(2);
    expect(merged.comments).toHaveLength(1);
    expect(merged.comments[0]?.body).toContain('✅ **Completed**');
  });

  it('a push whose pull request the token may not look up: one warning, not one a writer', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const sha = 'c1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    gh.thread(APP, { mergeCommitSha: sha });
    gh.fail('pullsOfCommit', { status: 403, message: 'Resource not accessible by integration' });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pushEvent(sha),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toHaveLength(1);
    expect(warnings(result)[0]).toContain('Could not find the pull request the pushed commit came from');
    expect(gh.count('pullsOfCommit')).toBe(1);
  });

  it("a token GitHub echoes back: redacted from the warning, like the service's key", async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    gh.fail('createComment', { status: 422, message: `Body rejected for token ${WORKFLOW_TOKEN}` });
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('(422 "Body rejected for token ***")');
  });

  it('a token GitHub rejects', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const result = await run({
      inputs: inputsFor(service, {
        comment: 'true',
        githubToken: 'ghp_revoked00000000000000000000000000000',
      }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    // The first call a revoked token makes is the identity query, and the warning says so.
    expect(warnings(result)).toEqual([
      `Could not learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to post the comment on ${APP}#${pr.number}: GitHub rejected githubToken (401 "Bad credentials"); it is missing, expired or revoked.`,
    ]);
  });
});
