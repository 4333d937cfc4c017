// Events that neither ask for docs nor change what they document start nothing, played with run()
// in this process against both emulators: a discussion comment under a trigger phrase, a new
// thread's close or lock under every-push, and a pull request a bot opened — the docs service's
// own docs PR in a monorepo, a dependency bot's — even from this repository.
import { describe, expect, it } from '@jest/globals';
import { docsThread, emulators, gitHubEmulators, notices, runHere as play } from '../__fixtures__/e2e.js';
import { APP, pullRequestAt, pushTo, sha } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

const threadWorld = () => docsThread(github, emulator);

/** A `pull_request` event of acme/app's pull request `pr` opened by `opener`, its head moved to `head`. */
function pullRequestBy(
  pr: { number: number; headSha: string },
  head: string,
  opener: { login: string; type?: string },
  action = 'opened',
) {
  const event = pushTo(pr, head, action);
  return {
    ...event,
    payload: {
      ...event.payload,
      pull_request: { ...event.payload.pull_request, user: opener },
      sender: { login: opener.login, type: opener.type ?? 'User' },
    },
  };
}

describe('a discussion comment under a trigger phrase', () => {
  it.each(['created', 'edited', 'deleted'])('%s: skipped, nothing sent anywhere', async (action) => {
    const { gh, service, step } = await threadWorld();
    const result = await play(
      step({
        name: 'discussion_comment',
        payload: {
          action,
          discussion: { number: 3 },
          comment: { id: 77, body: '/docs document the CLI', user: { login: 'octocat' } },
          repository: { name: 'app', full_name: APP, owner: { login: 'acme' } },
          sender: { login: 'octocat', type: 'User' },
        },
      }),
    );
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(notices(result)).toEqual([
      'Skipped: a discussion comment is never a request: "/docs" is read on issue and pull request comments.',
    ]);
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

describe('a new thread under every-push', () => {
  it.each([
    ['closed', 'Closed unmerged: no docs to follow'],
    ['locked', 'Nothing to document in this event'],
  ])('its first event is %s: no job, and a success status', async (action, words) => {
    const { gh, pr, service, step } = await threadWorld();
    const result = await play(step(pullRequestAt(pr.number, sha(1), action)));
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(service.count('create')).toBe(0);
    expect(gh.statuses(APP, sha(1)).map((s) => [s.state, s.description])).toEqual([
      ['success', expect.stringContaining(words)],
    ]);
  });
});

describe("a bot's pull request", () => {
  it.each([
    ['the docs service’s app', { login: 'docs-app[bot]' }],
    ['an account GitHub types as a bot', { login: 'renovate', type: 'Bot' }],
  ])('from this repository (%s): no job, even opened', async (_who, opener) => {
    const { pr, service, step } = await threadWorld();
    const result = await play(step(pullRequestBy(pr, sha(2), opener)));
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(notices(result)).toEqual([
      expect.stringContaining('a pull request a bot opened starts no job unless allowedActors names the bot'),
    ]);
    expect(service.requests).toEqual([]);
  });

  it('a human pushing to it starts nothing either', async () => {
    const { pr, service, step } = await threadWorld();
    const event = pullRequestBy(pr, sha(3), { login: 'dependabot[bot]' }, 'synchronize');
    const result = await play(
      step({ ...event, payload: { ...event.payload, sender: { login: 'octocat', type: 'User' } } }),
    );
    expect(result.outputs.status).toBe('skipped');
    expect(service.requests).toEqual([]);
  });

  it('named in allowedActors: a job', async () => {
    const { pr, service, step } = await threadWorld();
    const result = await play(
      step(pullRequestBy(pr, sha(4), { login: 'docs-app[bot]' }), { allowedActors: 'docs-app[bot]' }),
    );
    expect(result.code).toBe(0);
    expect(result.outputs.mode).toBe('created');
    expect(service.count('create')).toBe(1);
  });
});
