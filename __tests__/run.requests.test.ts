// `/docs` requests and who may make them, with run() in this process against both emulators over
// real sockets: a member's request starts one job and is acknowledged; an outsider, an unnamed
// bot, an edit or any other comment starts nothing, and the step does not fail. The rules are
// tested one by one in admission.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, BOT, commentEvent, gitHubEnv, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** A pull request of acme/app with a comment on it, and the run's options for that comment. */
async function requestWorld(
  body: string,
  options: Parameters<typeof commentEvent>[2] = {},
  inputs: Record<string, string> = {},
) {
  const service = await emulator();
  const gh = await github();
  const { pr } = world(gh);
  const comment = gh.addComment(APP, pr.number, { login: options.login ?? 'octocat', body });
  const run_ = {
    inputs: inputsFor(service, { prompt: '', trigger: '/docs', comment: 'true', ...inputs }),
    env: gitHubEnv(gh),
    event: commentEvent(pr.number, body, { ...options, id: comment.id }),
  };
  return { service, gh, pr, comment, options: run_ };
}

describe('a /docs request', () => {
  it('by a member: one job with the request, an 👀 on the comment, the kept comment answers', async () => {
    const { service, pr, comment, options } = await requestWorld('/docs Document the new --dry-run flag');
    const result = await run(options);
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(service.count('create')).toBe(1);
    expect((service.requests[0]?.json as { prompt: string }).prompt).toBe('Document the new --dry-run flag');
    expect(result.outputs.mode).toBe('created');
    expect(result.outputs.status).toBe('completed');
    expect(comment.reactions).toEqual(['eyes']);
    expect(pr.comments.map((c) => c.login)).toEqual(['octocat', BOT]);
    expect(pr.comments[1]?.body).toContain('✅ **Completed**');
  });

  it('by an outsider GitHub gives no write access: skipped, nothing sent, the step passes', async () => {
    const { service, gh, pr, options } = await requestWorld('/docs rewrite everything', {
      login: 'stranger',
      association: 'CONTRIBUTOR',
    });
    gh.collaborator(APP, 'stranger', 'read');
    const result = await run(options);
    expect(result.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(gh.count('getCollaboratorPermission')).toBe(1);
    expect(gh.count('createComment') + gh.count('createIssueCommentReaction')).toBe(0);
    expect(notices(result)).toEqual([
      'Skipped: stranger may not start a docs job here: their role on the repository is read, and a job needs write access. People with write access to the repository may; allowedActors can name others.',
    ]);
    expect(result.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(result.summary).toBe('');
    expect(pr.comments).toHaveLength(1);
  });

  it('by an outsider GitHub gives write access: a job', async () => {
    const { service, gh, options } = await requestWorld('/docs add the FAQ entry', {
      login: 'helper',
      association: 'CONTRIBUTOR',
    });
    gh.collaborator(APP, 'helper', 'maintain');
    const result = await run(options);
    expect(result.code).toBe(0);
    expect(service.count('create')).toBe(1);
  });

  it('by a bot allowedActors does not name: skipped without asking anyone', async () => {
    const { service, gh, options } = await requestWorld(
      '/docs bump',
      { login: 'renovate[bot]', type: 'Bot', association: 'NONE' },
      { allowedActors: '*' },
    );
    const before = gh.requests.length;
    const result = await run(options);
    expect(result.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(gh.requests.length).toBe(before);
    expect(notices(result)[0]).toContain('a bot starts a job only when allowedActors names it');
  });

  it.each([
    ['an edit of a request', '/docs document it', { action: 'edited' }, 'the comment was "edited"'],
    ['another comment', 'Looks good to me', {}, 'the comment does not begin with "/docs"'],
  ])('%s: skipped at once, no request to the service or GitHub', async (_name, body, options, why) => {
    const { service, gh, options: runOptions } = await requestWorld(body, options);
    const before = gh.requests.length;
    const result = await run(runOptions);
    expect(result.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(gh.requests.length).toBe(before);
    expect(notices(result)).toEqual([expect.stringContaining(`Skipped: ${why}`)]);
    expect(result.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
  });

  it('that is a bare phrase: an answer on the thread, not a job', async () => {
    const { service, pr, options } = await requestWorld('/docs');
    const result = await run(options);
    expect(result.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(pr.comments[1]?.login).toBe(BOT);
    expect(pr.comments[1]?.body).toContain('Nothing to do yet: write what the docs need after /docs');
    expect(result.outputs.commentUrl).toContain(`#issuecomment-${pr.comments[1]?.id}`);
    expect(result.outputs.status).toBe('skipped');
  });

  it('on an issue, with no GitHub input: an actor the payload does not vouch for is looked up with the workflow token', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    gh.collaborator(APP, 'helper', 'write');
    const issue = gh.thread(APP, { pull: false });
    const result = await run({
      inputs: inputsFor(service),
      env: gitHubEnv(gh),
      event: {
        name: 'issues',
        payload: {
          action: 'opened',
          issue: { number: issue.number, user: { login: 'helper' }, author_association: 'CONTRIBUTOR' },
          sender: { login: 'helper', type: 'User' },
        },
      },
    });
    expect(result.code).toBe(0);
    expect(gh.count('getCollaboratorPermission')).toBe(1);
    expect(service.count('create')).toBe(1);
    expect(result.outputs.mode).toBe('created');
  });
});
