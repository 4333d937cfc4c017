// The kept comment on the pull request or issue that started the run: run() in this process
// against the service's emulator and the GitHub emulator over real sockets (both checked against
// their published OpenAPI descriptions). Which comment is kept (paging, identity, one per marker)
// is checked in github-api.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gitHubEmulators,
  inputsFor,
  notices,
  pullRequestRun,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, BOT, gitHubEnv, pushEvent, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe.each([
  ['github.com and GHE.com (API at the root)', '' as const],
  ['GitHub Enterprise Server (API under /api/v3)', '/api/v3' as const],
])('on %s', (_, prefix) => {
  it('posts one comment when the job exists and updates it when it ends; a re-run updates it again', async () => {
    const service = await emulator({ activePolls: 1 });
    const gh = await github({ prefix });
    const { pr } = world(gh);
    const options = pullRequestRun(service, gh, pr.number, { comment: 'true' });

    const first = await run(options);
    expect(first.code).toBe(0);
    expect(warnings(first)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    const [comment] = pr.comments;
    expect(comment?.login).toBe(BOT);
    expect(comment?.body).toContain('✅ **Completed**');
    expect(comment?.body).toContain(first.outputs.prLink);
    expect(comment?.body).toContain(`Job \`${first.outputs.jobId}\``);
    expect(comment?.body).toMatch(/<!-- agent-job-action:[0-9a-f]{24} -->/);
    expect(first.outputs.commentUrl).toBe(
      `${gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${comment?.id}`,
    );
    // Posted while the job was still running, then updated once.
    expect(gh.count('createComment')).toBe(1);
    expect(gh.count('updateComment')).toBe(1);
    const posted = gh.requests.find((r) => r.route === 'createComment');
    expect(posted?.json).toMatchObject({ body: expect.stringContaining('⏳ **Working**') });
    const lastPoll = service.requests.filter((r) => r.route === 'get').at(-1);
    expect(posted?.at ?? Infinity).toBeLessThan(lastPoll?.at ?? 0);
    // Under the API prefix, through the token named by github.token.
    expect(gh.requests.every((r) => r.path.startsWith(prefix === '' ? '/' : '/api/'))).toBe(true);

    const second = await run(options);
    expect(second.code).toBe(0);
    expect(pr.comments).toHaveLength(1);
    expect(second.outputs.commentUrl).toBe(first.outputs.commentUrl);
    expect(pr.comments[0]?.body).toContain(`Job \`${second.outputs.jobId}\``);
    expect(gh.count('createComment')).toBe(1);
  });
});

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
});
