// Events that neither ask for docs nor change what they document start nothing, played with run()
// in this process against both emulators: a discussion comment under a trigger phrase, a new
// thread's close or lock under every-push, and a pull request a bot opened — the docs service's
// own docs PR in a monorepo, a dependency bot's — even from this repository.
import { describe, expect, it } from '@jest/globals';
import {
  docsThread,
  emulators,
  gitHubEmulators,
  notices,
  runHere as play,
  serviceTimeOnly,
  threadStep,
} from '../__fixtures__/e2e.js';
import type { Emulator } from '../emulators/server.js';
import type { GitHubEmulator } from '../emulators/github.js';
import { APP, commentEvent, pullRequestAt, pushEvent, pushTo, sha } from '../__fixtures__/github-world.js';

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

/** The thread's step where the docs live in acme/app: githubToken alone, no docsToken. */
function monorepoStep(service: Emulator, gh: GitHubEmulator) {
  const step = threadStep(service, gh);
  return (event: Parameters<typeof step>[0], inputs: Record<string, string> = {}) =>
    step(event, { docsToken: '', ...inputs });
}

describe('a monorepo: the thread’s own docs PR, opened by a person’s account', () => {
  /** Docs in acme/app itself: the service opens its docs PR there, as octocat (a token of a person's). */
  async function monorepo() {
    const { gh, pr } = await threadWorld();
    const docsPr = gh.thread(APP, { opener: 'octocat', headSha: sha(6), mergeCommitSha: sha(9) });
    const docsLink = `${gh.serverUrl}/${APP}/pull/${docsPr.number}`;
    const service = await emulator({
      final: { status: 'completed', prLink: docsLink },
      docsRepoUrl: `${gh.serverUrl}/${APP}`,
    });
    const here = monorepoStep(service, gh);
    const opened = await play(here(pushTo(pr, sha(2), 'opened')));
    expect(notices(opened)).toEqual([]);
    expect(opened.outputs.mode).toBe('created');
    return { gh, pr, docsPr, service, here };
  }

  it('the report labels it; its own opening (a payload without the label) starts no job, and its check passes', async () => {
    const { gh, pr, docsPr, service, here } = await monorepo();
    expect(docsPr.labels).toEqual(['docs-agent-pr']);
    // The thread carried the label of a job at work until the report labelled its docs PR.
    const labelled = gh.requests.filter((r) => r.route === 'addLabels' || r.route === 'removeLabel');
    expect(labelled.map((r) => [r.route, r.path.split('/')[5]])).toEqual([
      ['addLabels', String(pr.number)],
      ['addLabels', String(docsPr.number)],
      ['removeLabel', String(pr.number)],
    ]);
    expect(pr.labels).toEqual([]);
    const result = await play(here(pushTo(docsPr, sha(6), 'opened')));
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(notices(result)).toEqual([expect.stringContaining('carries the label docs-agent-pr')]);
    expect(service.count('create')).toBe(1);
    expect(gh.statuses(APP, sha(6))[0]).toMatchObject({
      state: 'success',
      description: expect.stringContaining('A docs PR starts no docs job'),
    });
  });

  it('its merge, pushed to main, starts no job', async () => {
    const { docsPr, service, here } = await monorepo();
    docsPr.merged = true;
    const result = await play(here(pushEvent(sha(9), { before: sha(8) })));
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
  });

  it('a request on it is answered there, naming the thread its note names, and sends nothing', async () => {
    const { pr, docsPr, service, here } = await monorepo();
    // The thread's report named the thread on its docs PR, in a note of the action's own.
    expect(docsPr.comments.map((c) => c.body.split('\n')[0])).toEqual([
      expect.stringContaining(`<!-- agent-job-docs-of ${APP}#${pr.number} job `),
    ]);
    const result = await play(here(commentEvent(docsPr.number, '/docs mention the flag', { id: 9100 })));
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(service.count('create')).toBe(1);
    expect(docsPr.comments.at(-1)?.body).toContain(`Ask on #${pr.number}, the pull request it documents`);
  });

  it('a note someone else wrote names nothing: the answer stays general', async () => {
    const { docsPr, here } = await monorepo();
    const [note] = docsPr.comments;
    if (note) note.login = 'octocat';
    await play(here(commentEvent(docsPr.number, '/docs mention the flag', { id: 9101 })));
    expect(docsPr.comments.at(-1)?.body).toContain('Ask on the pull request it documents');
  });
});

describe('a monorepo: a docs PR opened while its thread’s job is at work, before any report', () => {
  it('its own opening reads the jobs of the threads at work, and starts no job when one opened it', async () => {
    const { gh, pr } = await threadWorld();
    const docsPr = gh.thread(APP, { opener: 'octocat', headSha: sha(6) });
    const docsLink = `${gh.serverUrl}/${APP}/pull/${docsPr.number}`;
    const service = await emulator({ activePolls: 1000, docsRepoUrl: `${gh.serverUrl}/${APP}` });
    const here = monorepoStep(service, gh);
    // The thread's run ends while the job works (here its timeout): the thread stays at work.
    const working = await play(here(pushTo(pr, sha(2), 'opened'), { timeout: '30s' }), serviceTimeOnly());
    expect(working.outputs).toMatchObject({ mode: 'created', status: 'active' });
    expect(pr.labels).toEqual(['docs-agent-working']);
    expect(docsPr.labels).toEqual([]);

    // The agent opens its docs PR; the docs PR's run comes before any run reports the job.
    service.script('get', { job: { status: 'completed', prLink: docsLink } });
    const result = await play(here(pushTo(docsPr, sha(6), 'opened')));
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(notices(result)).toEqual([
      expect.stringContaining(
        `agent job ${working.outputs.jobId} of a thread of this workflow opened this pull request`,
      ),
    ]);
    expect(service.count('create')).toBe(1);
  });

  it('a pull request no job opened is a thread of its own, after one read of each job at work', async () => {
    const { gh, pr } = await threadWorld();
    const other = gh.thread(APP, { opener: 'octocat', headSha: sha(7) });
    const service = await emulator({ activePolls: 1000, docsRepoUrl: `${gh.serverUrl}/${APP}` });
    const here = monorepoStep(service, gh);
    await play(here(pushTo(pr, sha(2), 'opened'), { timeout: '30s' }), serviceTimeOnly());
    const reads = service.count('get');
    service.script('get', { job: { status: 'active' } });
    const result = await play(here(pushTo(other, sha(7), 'opened')), serviceTimeOnly());
    expect(result.outputs.mode).toBe('created');
    expect(service.count('create')).toBe(2);
    expect(service.count('get')).toBeGreaterThan(reads);
  });
});

describe("a bot's pull request merged by a push", () => {
  it('starts no job at its merge either', async () => {
    const { gh, service, step } = await threadWorld();
    gh.thread(APP, { opener: 'dependabot[bot]', headSha: sha(5), mergeCommitSha: sha(7) });
    const result = await play(step(pushEvent(sha(7), { before: sha(6) })));
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped' });
    expect(notices(result)).toEqual([
      expect.stringContaining('a pull request a bot opened starts no job unless allowedActors names the bot'),
    ]);
    expect(service.requests).toEqual([]);
  });
});
