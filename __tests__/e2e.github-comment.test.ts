// The kept comment on the pull request or issue that started the run, through the bundle under
// Node 24, against the service's emulator and the GitHub emulator (both checked against their
// published OpenAPI descriptions).
import { describe, expect, it } from '@jest/globals';
import { emulators, gitHubEmulators, inputsFor, run, warnings } from '../__fixtures__/e2e.js';
import { APP, BOT, gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';

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
    const options = {
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    };

    const first = await run(options);
    expect(first.code).toBe(0);
    expect(warnings(first)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    const [comment] = pr.comments;
    expect(comment?.login).toBe(BOT);
    expect(comment?.body).toContain('✅ **Completed**');
    expect(comment?.body).toContain(first.outputs.prLink);
    expect(comment?.body).toContain(`Job <code>${first.outputs.jobId}</code>`);
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
    expect(pr.comments[0]?.body).toContain(`Job <code>${second.outputs.jobId}</code>`);
    expect(gh.count('createComment')).toBe(1);
  });
});

describe('only its own comment is ever edited', () => {
  it('finds it among 150 comments, past the first page', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const options = {
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    };
    for (let i = 0; i < 120; i++) gh.addComment(APP, pr.number, { login: `user${i % 7}`, body: `LGTM ${i}` });
    await run(options);
    for (let i = 0; i < 30; i++) gh.addComment(APP, pr.number, { login: 'octocat', body: `later ${i}` });
    expect(pr.comments).toHaveLength(151);

    const before = gh.count('listComments');
    const rerun = await run(options);
    expect(rerun.code).toBe(0);
    expect(pr.comments).toHaveLength(151);
    // Comment 121 is on the second page of 100.
    expect(gh.count('listComments') - before).toBe(2);
    expect(pr.comments[120]?.body).toContain(`Job <code>${rerun.outputs.jobId}</code>`);
  });

  it('leaves a comment with a copied marker alone when someone else wrote it', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const other = gh.thread(APP);
    const inputs = inputsFor(service, { comment: 'true' });
    await run({ inputs, env: gitHubEnv(gh), event: pullRequestEvent(pr.number) });
    const copied = pr.comments[0]?.body ?? '';
    const planted = gh.addComment(APP, other.number, {
      login: 'mallory',
      body: `${copied}\n[click here](https://evil.example)`,
    });

    const result = await run({ inputs, env: gitHubEnv(gh), event: pullRequestEvent(other.number) });
    expect(result.code).toBe(0);
    expect(planted.body).toBe(`${copied}\n[click here](https://evil.example)`);
    expect(other.comments.map((c) => c.login)).toEqual(['mallory', BOT]);
    expect(gh.count('updateComment')).toBe(2);
  });

  it('keeps one comment per matrix leg: another prompt is another comment', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    for (const prompt of ['Document the CLI', 'Document the SDK', 'Document the CLI']) {
      const result = await run({
        inputs: inputsFor(service, { comment: 'true', prompt }),
        env: gitHubEnv(gh),
        event: pullRequestEvent(pr.number),
      });
      expect(result.code).toBe(0);
    }
    expect(pr.comments).toHaveLength(2);
  });
});
