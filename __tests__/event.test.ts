// The event read once: GitHub's name and payload parsed into the union every rule asks. Each kind
// from a small payload; fields of the wrong type read as absent; GitHub's recorded payloads parse
// without a fault into the facts they name.
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { parseEvent, type Payload, type RunEvent } from '../src/core/event.js';

const SHA = 'a'.repeat(40);
const repository = {
  id: 1,
  full_name: 'acme/app',
  default_branch: 'main',
  owner: { login: 'acme', type: 'Organization' },
};
const sender = { login: 'octocat', type: 'User' };
const pull = (head = 'acme/app') => ({
  number: 7,
  head: { sha: SHA, repo: { full_name: head } },
  base: { repo: { full_name: 'acme/app' } },
});
const common = {
  sender: { login: 'octocat', type: 'User' },
  repository: {
    id: 1,
    fullName: 'acme/app',
    defaultBranch: 'main',
    owner: { login: 'acme', type: 'Organization' },
  },
};

describe('parseEvent', () => {
  it.each<[string, Payload, RunEvent]>([
    [
      'push',
      { ref: 'refs/heads/main', before: '0'.repeat(40), after: SHA, repository, sender },
      {
        kind: 'push',
        name: 'push',
        ref: 'refs/heads/main',
        before: '0'.repeat(40),
        after: SHA,
        deleted: false,
        forced: false,
        ...common,
      },
    ],
    [
      'pull_request',
      { action: 'opened', pull_request: pull('someone/app'), repository, sender },
      {
        kind: 'pull-request',
        name: 'pull_request',
        action: 'opened',
        target: false,
        pull: { number: 7, headSha: SHA, fork: { repo: 'someone/app' } },
        ...common,
      },
    ],
    [
      'pull_request_target',
      { action: 'labeled', label: { name: 'Docs' }, pull_request: pull(), repository, sender },
      {
        kind: 'pull-request',
        name: 'pull_request_target',
        action: 'labeled',
        target: true,
        pull: { number: 7, headSha: SHA },
        label: 'Docs',
        ...common,
      },
    ],
    [
      'pull_request_review',
      { action: 'submitted', pull_request: pull(), repository, sender },
      {
        kind: 'review',
        name: 'pull_request_review',
        action: 'submitted',
        pull: { number: 7, headSha: SHA },
        ...common,
      },
    ],
    [
      'issue_comment',
      {
        action: 'created',
        comment: { id: 5, body: '/docs x' },
        issue: { number: 3, pull_request: {} },
        repository,
        sender,
      },
      {
        kind: 'comment',
        name: 'issue_comment',
        action: 'created',
        review: false,
        comment: { id: 5, body: '/docs x' },
        issue: { number: 3, pull: true },
        ...common,
      },
    ],
    [
      'pull_request_review_comment',
      { action: 'created', comment: { id: 6, body: 'hm' }, pull_request: pull(), repository, sender },
      {
        kind: 'comment',
        name: 'pull_request_review_comment',
        action: 'created',
        review: true,
        comment: { id: 6, body: 'hm' },
        pull: { number: 7, headSha: SHA },
        ...common,
      },
    ],
    [
      'issues',
      { action: 'unlabeled', label: { name: 'docs' }, issue: { number: 4 }, repository, sender },
      {
        kind: 'issue',
        name: 'issues',
        action: 'unlabeled',
        issue: { number: 4, pull: false },
        label: 'docs',
        ...common,
      },
    ],
    [
      'workflow_run',
      {
        action: 'completed',
        workflow_run: {
          event: 'pull_request_target',
          head_sha: SHA,
          head_repository: { full_name: 'someone/app' },
          pull_requests: [
            { number: 7, base: { repo: { id: 1, url: 'https://api.github.com/repos/acme/app' } } },
            { number: 0 },
            'not a pull request',
            { number: 8 },
          ],
          actor: { login: 'someone', type: 'User' },
          triggering_actor: { login: 'helper[bot]', type: 'Bot' },
        },
        repository,
        sender,
      },
      {
        kind: 'workflow-run',
        name: 'workflow_run',
        action: 'completed',
        run: {
          headSha: SHA,
          headRepository: 'someone/app',
          cause: { kind: 'pull-request', target: true },
          pullRequests: [
            { number: 7, baseRepoId: 1, baseRepoUrl: 'https://api.github.com/repos/acme/app' },
            { number: 8 },
          ],
          actor: { login: 'someone', type: 'User' },
          triggeringActor: { login: 'helper[bot]', type: 'Bot' },
        },
        ...common,
      },
    ],
    [
      'release',
      { action: 'published', repository, sender },
      { kind: 'release', name: 'release', action: 'published', ...common },
    ],
    ['workflow_dispatch', { repository, sender }, { kind: 'dispatch', name: 'workflow_dispatch', ...common }],
    ['schedule', { schedule: '0 0 * * *' }, { kind: 'schedule', name: 'schedule' }],
    [
      'discussion_comment',
      { action: 'created', sender },
      {
        kind: 'discussion',
        comment: true,
        name: 'discussion_comment',
        action: 'created',
        sender: common.sender,
      },
    ],
    [
      'repository_dispatch',
      { action: 'go', sender },
      { kind: 'other', name: 'repository_dispatch', action: 'go', sender: common.sender },
    ],
    ['', {}, { kind: 'other', name: '' }],
  ])('reads %j', (name, payload, expected) => {
    expect(parseEvent(name, payload)).toEqual(expected);
  });

  it('reads a deleted ref and a forced push', () => {
    expect(parseEvent('push', { ref: 'refs/tags/v1', deleted: true, forced: true })).toEqual({
      kind: 'push',
      name: 'push',
      ref: 'refs/tags/v1',
      deleted: true,
      forced: true,
    });
  });

  it('takes a head repository deleted since (null) as a fork, and a base without a name as none', () => {
    const head = { sha: SHA, repo: null };
    expect(
      parseEvent('pull_request', { pull_request: { number: 1, head, base: { repo: { full_name: 'a/b' } } } }),
    ).toMatchObject({ pull: { fork: {} } });
    expect(parseEvent('pull_request', { pull_request: { number: 1, head } })).toEqual({
      kind: 'pull-request',
      name: 'pull_request',
      target: false,
      pull: { number: 1, headSha: SHA },
    });
  });

  it('names a label only on labeled and unlabeled', () => {
    expect(parseEvent('issues', { action: 'opened', label: { name: 'docs' } })).not.toHaveProperty('label');
    expect(parseEvent('issues', { action: 'labeled', label: { name: 7 } })).toMatchObject({ label: '' });
  });

  it('reads a field of the wrong type as absent, and never throws', () => {
    const odd = {
      action: 5,
      sender: 'octocat',
      repository: { id: '1', full_name: null, owner: [] },
      ref: {},
      after: 12,
      deleted: 'true',
      comment: { id: '5', body: ['x'] },
      issue: { number: '3', pull_request: null },
      pull_request: { number: 7.5, head: 'x', base: null },
      label: null,
      workflow_run: { event: 1, head_sha: false, pull_requests: 'none', head_repository: 3, actor: null },
    };
    expect(parseEvent('push', odd)).toEqual({
      kind: 'push',
      name: 'push',
      repository: {},
      deleted: false,
      forced: false,
    });
    expect(parseEvent('issue_comment', odd)).toEqual({
      kind: 'comment',
      name: 'issue_comment',
      review: false,
      repository: {},
      comment: {},
      issue: { pull: false },
    });
    expect(parseEvent('pull_request_review_comment', odd)).toMatchObject({ pull: { number: 7.5 } });
    expect(parseEvent('workflow_run', odd)).toEqual({
      kind: 'workflow-run',
      name: 'workflow_run',
      repository: {},
      run: { pullRequests: [], cause: { kind: 'other', target: false } },
    });
    for (const payload of [null, undefined, 'text', 42, [], [{}]]) {
      expect(parseEvent('pull_request', payload)).toEqual({
        kind: 'pull-request',
        name: 'pull_request',
        target: false,
      });
    }
    // A name that is also an Object.prototype key is no event the action reads.
    expect(parseEvent('constructor', {})).toEqual({ kind: 'other', name: 'constructor' });
  });

  it("reads every one of GitHub's recorded payloads into the facts it names", () => {
    const recorded = createRequire(import.meta.url)(
      '@octokit/webhooks-examples/api.github.com/index.json',
    ) as { name: string; examples: Raw[] }[];
    const all = recorded.flatMap(({ name, examples }) => examples.map((raw) => ({ name, raw })));
    expect(all.length).toBeGreaterThan(300);
    expect(all.map(({ name, raw }) => factsOf(parseEvent(name, raw)))).toEqual(
      all.map(({ name, raw }) => named(name, raw)),
    );
  });
});

interface Raw extends Payload {
  sender?: { login?: unknown };
  pull_request?: { number?: unknown; head?: { sha?: unknown } };
  comment?: { id?: unknown };
  workflow_run?: { head_sha?: unknown } | null;
}

const string = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** What the rules read of an event, from the union. */
function factsOf(event: RunEvent) {
  const pull = 'pull' in event ? event.pull : undefined;
  return {
    name: event.name,
    action: event.action,
    sender: event.sender?.login,
    number: pull?.number ?? ('issue' in event ? event.issue?.number : undefined),
    head: pull?.headSha ?? (event.kind === 'workflow-run' ? event.run.headSha : undefined),
    comment: event.kind === 'comment' ? event.comment?.id : undefined,
  };
}

/** The same facts, as the raw payload names them for each of GitHub's names. */
function named(name: string, raw: Raw): ReturnType<typeof factsOf> {
  const pulls = ['pull_request', 'pull_request_target', 'pull_request_review', 'pull_request_review_comment'];
  const pull = pulls.includes(name);
  const issue = name === 'issues' || name === 'issue_comment';
  return {
    name,
    action: string(raw.action),
    sender: string(raw.sender?.login),
    number: pull ? num(raw.pull_request?.number) : issue ? num(raw.issue?.number) : undefined,
    head: pull
      ? string(raw.pull_request?.head?.sha)
      : name === 'workflow_run'
        ? string(raw.workflow_run?.head_sha)
        : undefined,
    comment:
      name === 'issue_comment' || name === 'pull_request_review_comment' ? num(raw.comment?.id) : undefined,
  };
}
