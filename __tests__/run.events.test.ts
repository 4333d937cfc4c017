// Events as GitHub sends them, through run() in this process against both emulators: a
// `workflow_run` reports on the commit the run it follows ran on and follows its pull request's
// job; a push that deletes a branch or a tag sends nothing anywhere; a `triggerLabel` reaches
// GitHub as the label it is, and one that would change the URL it is taken off with is a bad
// input. GitHub's own recorded payloads go through the same rules in events.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, DOCS_TOKEN, gitHubEnv, pushTo, pushEvent, sha, world } from '../__fixtures__/github-world.js';
import type { GitHubEmulator } from '../emulators/github.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** What the runner gives as GITHUB_SHA on a workflow_run: the default branch's head. */
const DEFAULT_HEAD = 'ffac537e6cbbf934b08745a378932722df287a53';
const APP_ID = 1296269;

/**
 * A `workflow_run` that follows a CI run of acme/app on `head`, which GitHub says belongs to
 * `pulls` (each in acme/app unless `repo` names another repository, by its id and URL).
 */
function workflowRunEvent(
  gh: GitHubEmulator,
  head: string,
  pulls: { number: number; repo?: [number, string] }[],
) {
  const repoRef = ([id, name]: [number, string]) => ({ id, url: `${gh.apiUrl}/repos/${name}`, name });
  return {
    name: 'workflow_run',
    payload: {
      action: 'completed',
      repository: { id: APP_ID, full_name: APP, name: 'app', owner: { login: 'acme', type: 'Organization' } },
      workflow_run: {
        event: 'pull_request',
        head_sha: head,
        head_branch: 'topic',
        head_repository: { full_name: APP },
        actor: { login: 'octocat', type: 'User' },
        triggering_actor: { login: 'octocat', type: 'User' },
        pull_requests: pulls.map(({ number, repo = [APP_ID, APP] }) => ({
          id: 1000 + number,
          number,
          url: `${gh.apiUrl}/repos/${repo[1]}/pulls/${number}`,
          head: { ref: 'topic', sha: head, repo: repoRef(repo) },
          base: { ref: 'main', sha: sha(0), repo: repoRef(repo) },
        })),
      },
      sender: { login: 'octocat', type: 'User' },
    },
  };
}

describe('workflow_run', () => {
  it("puts the status on the followed run's head, and follows its pull request's job", async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (head: string, runId: string) => {
      // The run it follows ran on the pull request's newest push.
      pr.headSha = head;
      return {
        inputs: inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN }),
        env: { ...gitHubEnv(gh), GITHUB_RUN_ID: runId },
        event: workflowRunEvent(gh, head, [{ number: pr.number }]),
      };
    };

    const first = await run(options(sha(1), '501'));
    expect(first.code).toBe(0);
    expect(warnings(first)).toEqual([]);
    expect(first.outputs.mode).toBe('created');
    expect(gh.statuses(APP, sha(1)).map((s) => s.state)).toEqual(['success', 'pending']);
    expect(gh.statuses(APP, DEFAULT_HEAD)).toEqual([]);
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);

    const second = await run(options(sha(2), '502'));
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(1);
    expect(gh.statuses(APP, sha(2)).map((s) => s.state)).toEqual(['success', 'pending']);
    expect(gh.statuses(APP, DEFAULT_HEAD)).toEqual([]);
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);
  });

  it('takes no pull request of another repository for its thread', async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await run({
      inputs: inputsFor(service, { comment: 'true', status: 'true' }),
      env: gitHubEnv(gh),
      event: workflowRunEvent(gh, sha(3), [{ number: pr.number, repo: [99, 'someone/else'] }]),
    });
    expect(result.code).toBe(0);
    expect(notices(result)).toEqual([
      'No comment posted: the run this workflow_run follows belongs to no pull request of acme/app.',
    ]);
    expect(pr.comments).toEqual([]);
    expect(gh.statuses(APP, sha(3)).map((s) => s.state)).toEqual(['success', 'pending']);
  });
});

describe('a push that deletes its ref', () => {
  it.each([
    ['refs/heads/topic', 'the branch topic'],
    ['refs/tags/v1.2.0', 'the tag v1.2.0'],
  ])('of %s sends nothing to the service or GitHub, and says so once', async (ref, words) => {
    const gh = await github();
    world(gh);
    const service = await emulator();
    const result = await run({
      inputs: inputsFor(service, {
        thread: 'true',
        status: 'true',
        context: 'auto',
        paths: 'docs/**',
        docsToken: DOCS_TOKEN,
      }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(0), { ref, before: sha(4), deleted: true, created: false }),
    });
    expect(result.code).toBe(0);
    expect(result.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(notices(result)).toEqual([
      `Skipped: the push deleted ${words}, which leaves nothing to document.`,
    ]);
    expect(warnings(result)).toEqual([]);
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

describe('triggerLabel', () => {
  it('reaches GitHub as the label it is when it is taken off, whatever it holds', async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const name = 'needs docs? 100% #1 & more+';
    pr.labels.push('bug', name);
    const event = pushTo(pr, sha(5), 'labeled');
    const result = await run({
      inputs: inputsFor(service, { triggerLabel: name }),
      env: gitHubEnv(gh),
      event: { ...event, payload: { ...event.payload, label: { name } } },
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(service.count('create')).toBe(1);
    expect(pr.labels).toEqual(['bug']);
    const removal = gh.requests.filter((r) => r.route === 'removeLabel');
    expect(removal.map((r) => r.path)).toEqual([
      `/repos/acme/app/issues/${pr.number}/labels/needs%20docs%3F%20100%25%20%231%20%26%20more%2B`,
    ]);
  });

  it.each(['..', '.', 'docs/api', 'do\u0000cs'])(
    '%j is a bad input: one error naming it, nothing sent',
    async (name) => {
      const gh = await github();
      const { pr } = world(gh);
      const service = await emulator();
      pr.labels.push(name);
      const event = pushTo(pr, sha(6), 'labeled');
      const result = await run({
        inputs: inputsFor(service, { triggerLabel: name }),
        env: gitHubEnv(gh),
        event: { ...event, payload: { ...event.payload, label: { name } } },
      });
      expect(result.code).toBe(1);
      expect(errors(result)).toEqual([expect.stringMatching(/^Input "triggerLabel" is "/)]);
      expect(service.requests).toEqual([]);
      expect(gh.requests).toEqual([]);
      expect(pr.labels).toEqual([name]);
    },
  );
});
