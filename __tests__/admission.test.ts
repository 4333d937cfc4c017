// Whether a run acts at all, decided from the event before anything is sent: which comments are
// `/docs` requests, who may start a job from events anyone can cause, and the prompt a request
// makes.
import { describe, expect, it } from '@jest/globals';
import { commentEvent, pullRequestEvent } from '../__fixtures__/github-world.js';
import { admit, type Admission } from '../src/decide/admission.js';
import { parseEvent } from '../src/core/event.js';
import { eventNeeds } from '../src/decide/features.js';
import { gate, notAThread } from '../src/decide/gate.js';
import { readInputs, type Inputs } from '../src/decide/inputs.js';
import { readRequest } from '../src/decide/trigger.js';

const event = (e: { name: string; payload: unknown }) => parseEvent(e.name, e.payload);

function inputs(given: Record<string, string> = {}, eventName = 'issue_comment'): Inputs {
  const values: Record<string, string> = {
    projectId: 'proj',
    apiKey: 'mint_admission_key',
    baseUrl: 'https://api.example.com',
    wait: 'true',
    timeout: '10m',
    pollInterval: '10s',
    githubToken: 'ghs_AdmissionToken0000000000000000000001',
    trigger: '/docs',
    ...given,
  };
  return readInputs((name) => values[name] ?? '', process.cwd(), eventNeeds(parseEvent(eventName, {})));
}

describe('a /docs request', () => {
  it.each([
    ['/docs document the flag', 'document the flag'],
    ['  /DOCS   document the flag  ', 'document the flag'],
    ['/Docs\nPlease document:\n- the flag', 'Please document:\n- the flag'],
    ['/docs', ''],
  ])('is a comment that begins with the phrase, in any case: %j', (body, request) => {
    const found = readRequest('/docs', event(commentEvent(3, body)));
    expect(found).toEqual({ kind: 'request', text: request, comment: { id: 9001, review: false } });
  });

  it.each([
    ['the phrase elsewhere', 'please /docs this', 'the comment does not begin with "/docs"'],
    ['a longer word', '/docsify the flag', 'the comment does not begin with "/docs"'],
    ['an edit', '/docs document the flag', 'the comment was "edited", and only a new comment is a request'],
    [
      'a deletion',
      '/docs document the flag',
      'the comment was "deleted", and only a new comment is a request',
    ],
  ])('is not %s', (name, body, why) => {
    const action = name === 'an edit' ? 'edited' : name === 'a deletion' ? 'deleted' : 'created';
    expect(readRequest('/docs', event(commentEvent(3, body, { action })))).toEqual({ kind: 'skip', why });
  });

  it('on a review comment, names it as one (its reaction goes elsewhere)', () => {
    const review = { ...commentEvent(3, '/docs x'), name: 'pull_request_review_comment' };
    expect(readRequest('/docs', event(review))).toMatchObject({ comment: { id: 9001, review: true } });
  });

  it('means nothing without a phrase, or on an event that is not a comment', () => {
    expect(readRequest(undefined, event(commentEvent(3, '/docs x')))).toEqual({ kind: 'none' });
    expect(readRequest('/docs', event(pullRequestEvent(3)))).toEqual({ kind: 'none' });
  });
});

describe('a label request', () => {
  const labelled = (name: string, label: string, action = 'labeled') => {
    const e = pullRequestEvent(3);
    return event({
      ...e,
      payload: { ...e.payload, action, label: { name: label }, sender: { login: name, type: 'User' } },
    });
  };

  it('is triggerLabel applied, in any case; another label or a removal is not, and costs nothing', () => {
    expect(readRequest(undefined, labelled('octocat', 'Docs'), 'docs')).toEqual({
      kind: 'label',
      label: 'Docs',
    });
    expect(readRequest(undefined, labelled('octocat', 'bug'), 'docs')).toEqual({
      kind: 'skip',
      why: 'the label applied is "bug", not "docs"',
    });
    expect(readRequest(undefined, labelled('octocat', 'docs', 'unlabeled'), 'docs')).toMatchObject({
      kind: 'skip',
    });
    // Other actions run as they would without a label.
    expect(readRequest(undefined, event(pullRequestEvent(3)), 'docs')).toEqual({ kind: 'none' });
  });

  it('always asks GitHub about the labeller, even on a pull request from this repository', async () => {
    const e = labelled('triager', 'docs');
    expect(gate(e, [], '', true)).toEqual({ kind: 'ask', actor: 'triager' });
    expect(gate(e, [], '', false)).toEqual({ kind: 'open' });
    const asked: string[] = [];
    const refused = await admit(
      inputs({ prompt: 'Write the docs.', triggerLabel: 'docs' }, 'pull_request'),
      e,
      readRequest(undefined, e, 'docs'),
      (actor) => {
        asked.push(actor);
        return Promise.resolve({ permission: 'read', role: 'triage' });
      },
    );
    expect(asked).toEqual(['triager']);
    expect(refused).toMatchObject({
      kind: 'skip',
      notice: expect.stringContaining('their role on the repository is triage'),
    });
    const writer = await admit(
      inputs({ prompt: 'Write the docs.', triggerLabel: 'docs' }, 'pull_request'),
      e,
      readRequest(undefined, e, 'docs'),
      () => Promise.resolve({ permission: 'write', role: 'write' }),
    );
    expect(writer).toEqual({ kind: 'go', prompt: 'Write the docs.' });
  });
});

describe('who may start a job', () => {
  /** A repository owned by the user `owner`, as the payload's `repository` says it. */
  const userOwned = (e: { name: string; payload: Record<string, unknown> }, owner: string) => ({
    ...e,
    payload: {
      ...e.payload,
      repository: { name: 'app', full_name: `${owner}/app`, owner: { login: owner, type: 'User' } },
    },
  });

  it.each([
    // author_association is never write access: MEMBER is the organisation's, COLLABORATOR any role.
    ['a member: GitHub is asked', commentEvent(3, '/docs x'), [], 'ask'],
    [
      'a collaborator: GitHub is asked',
      commentEvent(3, '/docs x', { association: 'COLLABORATOR' }),
      [],
      'ask',
    ],
    [
      "an organisation's owner: GitHub is asked",
      commentEvent(3, '/docs x', { association: 'OWNER' }),
      [],
      'ask',
    ],
    [
      "the owner of a user's repository",
      userOwned(commentEvent(3, '/docs x', { login: 'Mona', association: 'OWNER' }), 'mona'),
      [],
      'allowed',
    ],
    [
      "someone else on a user's repository",
      userOwned(commentEvent(3, '/docs x', { login: 'hubot', association: 'OWNER' }), 'mona'),
      [],
      'ask',
    ],
    [
      'an outsider: GitHub is asked',
      commentEvent(3, '/docs x', { login: 'stranger', association: 'NONE' }),
      [],
      'ask',
    ],
    [
      'an outsider named',
      commentEvent(3, '/docs x', { login: 'Stranger', association: 'NONE' }),
      ['stranger'],
      'allowed',
    ],
    [
      'an outsider, with *',
      commentEvent(3, '/docs x', { login: 'stranger', association: 'NONE' }),
      ['*'],
      'allowed',
    ],
    ['a bot, even a member', commentEvent(3, '/docs x', { login: 'ci[bot]', type: 'Bot' }), ['*'], 'refused'],
    ['a bot named', commentEvent(3, '/docs x', { login: 'ci[bot]', type: 'Bot' }), ['ci[bot]'], 'allowed'],
    ['a push, not checked', { name: 'push', payload: {} }, [], 'open'],
    ['a schedule, not checked', { name: 'schedule', payload: {} }, [], 'open'],
    ['a pull request from this repository, not checked', pullRequestEvent(3), [], 'open'],
    ["a fork's pull request by a member: GitHub is asked", pullRequestEvent(3, 'someone/app'), [], 'ask'],
  ])('%s', (_name, e, allowed, kind) => {
    expect(gate(event(e), allowed).kind).toBe(kind);
  });

  it('asks about the sender, whoever wrote what the event is about', () => {
    // A member's pull request, pushed to by someone else: the one who pushed is asked about.
    const pushed = pullRequestEvent(3, 'someone/app');
    const payload = { ...pushed.payload, sender: { login: 'stranger', type: 'User' } };
    expect(gate(event({ ...pushed, payload }), [])).toEqual({ kind: 'ask', actor: 'stranger' });
    const target = { name: 'pull_request_target', payload };
    expect(gate(event(target), [])).toEqual({ kind: 'ask', actor: 'stranger' });
  });

  it('refuses an event without a sender, and falls back on the runner-given actor only when told', () => {
    const payload = {
      action: 'opened',
      issue: { number: 1, user: { login: 'a' }, author_association: 'MEMBER' },
    };
    expect(gate(event({ name: 'issues', payload }), [])).toMatchObject({ kind: 'refused' });
    expect(gate(event({ name: 'issues', payload }), [], 'a')).toEqual({ kind: 'ask', actor: 'a' });
  });

  describe('on workflow_run', () => {
    const workflowRun = (run: Record<string, unknown>) =>
      event({
        name: 'workflow_run',
        payload: {
          action: 'completed',
          workflow_run: { event: 'pull_request', head_repository: { full_name: 'acme/app' }, ...run },
          repository: { full_name: 'acme/app', owner: { login: 'acme', type: 'Organization' } },
          sender: { login: 'octocat', type: 'User' },
        },
      });

    it.each([
      ['a run of this repository, started by a push', { event: 'push' }, 'open'],
      ['a pull request from this repository', {}, 'open'],
      [
        "a fork's pull request: its triggering actor is asked about",
        {
          head_repository: { full_name: 'someone/app' },
          triggering_actor: { login: 'someone', type: 'User' },
        },
        'ask:someone',
      ],
      [
        "a fork's pull request without a triggering actor: its actor",
        { head_repository: { full_name: 'someone/app' }, actor: { login: 'someone', type: 'User' } },
        'ask:someone',
      ],
      ['a deleted fork', { head_repository: null, actor: { login: 'someone' } }, 'ask:someone'],
      [
        'a run a comment started',
        { event: 'issue_comment', triggering_actor: { login: 'commenter' } },
        'ask:commenter',
      ],
      ['a run pull_request_target started', { event: 'pull_request_target', actor: { login: 'x' } }, 'ask:x'],
      [
        'a bot that re-ran it',
        { head_repository: { full_name: 'someone/app' }, triggering_actor: { login: 'helper', type: 'Bot' } },
        'refused:helper',
      ],
    ])('%s', (_name, run, expected) => {
      const decided = gate(workflowRun(run), []);
      expect(decided.kind === 'open' ? 'open' : `${decided.kind}:${decided.actor}`).toBe(expected);
    });
  });
});

describe('a pull request that is no thread of its own', () => {
  it('one carrying the docs PR label: no job, whoever opened it and whoever asks', () => {
    const opened = { docsLabel: true, by: { login: 'octocat', type: 'User' } };
    for (const asked of [false, true]) {
      expect(notAThread(opened, ['*'], asked)).toMatchObject({
        notice: expect.stringContaining('carries the label docs-agent-pr'),
        status: 'A docs PR starts no docs job',
      });
    }
  });

  it("a bot's (…[bot], or typed Bot): no job unless allowedActors names it, or someone asked", () => {
    for (const by of [{ login: 'dependabot[bot]' }, { login: 'renovate', type: 'Bot' }]) {
      expect(notAThread({ docsLabel: false, by }, [], false)?.notice).toContain(
        'a pull request a bot opened starts no job unless allowedActors names the bot',
      );
      expect(notAThread({ docsLabel: false, by }, [by.login.toUpperCase()], false)).toBeUndefined();
      expect(notAThread({ docsLabel: false, by }, [], true)).toBeUndefined();
    }
  });

  it("a person's, or one GitHub said nothing of: a thread", () => {
    expect(
      notAThread({ docsLabel: false, by: { login: 'octocat', type: 'User' } }, [], false),
    ).toBeUndefined();
    expect(notAThread({ docsLabel: false }, [], false)).toBeUndefined();
    expect(notAThread(undefined, [], false)).toBeUndefined();
  });
});

describe('admit', () => {
  const go = (admission: Admission) => (admission.kind === 'go' ? admission : undefined);
  const noRole = () => Promise.reject(new Error('GitHub must not be asked'));
  const writer = () => Promise.resolve({ permission: 'write', role: 'write' });

  it('sends the standing prompt, then the request', async () => {
    const admitted = await admit(
      inputs({ prompt: 'Keep the style guide.' }),
      event(commentEvent(3, '/docs document the flag')),
      readRequest('/docs', event(commentEvent(3, '/docs document the flag'))),
      writer,
    );
    expect(go(admitted)).toEqual({
      kind: 'go',
      prompt: 'Keep the style guide.\n\ndocument the flag',
      request: { id: 9001, review: false },
    });
  });

  it('skips a comment that is not a request without asking anyone', async () => {
    const e = event(commentEvent(3, 'LGTM', { login: 'stranger', association: 'NONE' }));
    expect(await admit(inputs(), e, readRequest('/docs', e), noRole)).toEqual({
      kind: 'skip',
      notice: 'Skipped: the comment does not begin with "/docs".',
    });
  });

  it('answers a bare phrase on the thread instead of starting a job', async () => {
    const e = event(commentEvent(3, '/docs'));
    const admitted = await admit(inputs(), e, readRequest('/docs', e), writer);
    expect(admitted).toMatchObject({
      kind: 'skip',
      answer: expect.stringContaining('write what the docs need after /docs'),
    });
    const standing = await admit(
      inputs({ prompt: 'Refresh the API pages.' }),
      e,
      readRequest('/docs', e),
      writer,
    );
    expect(go(standing)?.prompt).toBe('Refresh the API pages.');
  });

  it.each([
    [{ permission: 'write', role: 'write' }, ''],
    [{ permission: 'write', role: 'maintain' }, ''],
    [{ permission: 'admin', role: 'admin' }, ''],
    // A custom role's own name is in role_name; the base role it is built on, in permission.
    [{ permission: 'write', role: 'docs-writer' }, ''],
    [
      { permission: 'read', role: 'triage' },
      'their role on the repository is triage, and a job needs write access',
    ],
    [
      { permission: 'read', role: 'read' },
      'their role on the repository is read, and a job needs write access',
    ],
    [
      { permission: 'read', role: 'docs-reader' },
      'their role on the repository is docs-reader, and a job needs write access',
    ],
    [
      { permission: 'none', role: 'none' },
      'their role on the repository is none, and a job needs write access',
    ],
    [undefined, 'GitHub could not tell whether they have write access'],
  ])("asks GitHub for the actor's access: %j", async (access, refusedFor) => {
    const e = event(commentEvent(3, '/docs x', { login: 'stranger', association: 'MEMBER' }));
    const asked: string[] = [];
    const admitted = await admit(inputs(), e, readRequest('/docs', e), async (actor) => {
      asked.push(actor);
      return access;
    });
    expect(asked).toEqual(['stranger']);
    expect(admitted.kind === 'skip' ? admitted.notice : '').toBe(
      refusedFor
        ? `Skipped: stranger may not start a docs job here: ${refusedFor}. People with write access to the repository may; allowedActors can name others.`
        : '',
    );
  });

  it('refuses a bot without asking GitHub, and says who and why', async () => {
    const e = event(commentEvent(3, '/docs x', { login: 'renovate[bot]', type: 'Bot' }));
    expect(await admit(inputs({ allowedActors: '*' }), e, readRequest('/docs', e), noRole)).toEqual({
      kind: 'skip',
      notice:
        'Skipped: "renovate[bot]" may not start a docs job here: a bot starts a job only when allowedActors names it. People with write access to the repository may; allowedActors can name others.',
    });
  });
});

describe('the inputs of a request', () => {
  it('need no prompt on a comment event with a trigger, and a prompt anywhere else', () => {
    expect(inputs().prompt).toBeUndefined();
    expect(() => inputs({}, 'push')).toThrow('Input "prompt" is required');
    expect(() => inputs({ trigger: '' })).toThrow('Input "prompt" is required');
  });

  it('refuse an actor list GitHub cannot have, and a trigger on two lines', () => {
    expect(() => inputs({ allowedActors: 'octo cat' })).toThrow('Input "allowedActors" has "octo cat"');
    expect(inputs({ allowedActors: 'octocat, ci[bot]\n*' }).allowedActors).toEqual([
      'octocat',
      'ci[bot]',
      '*',
    ]);
    expect(() => inputs({ trigger: '/docs\nplease' })).toThrow('Input "trigger" must be a phrase');
    // The docs service's own app answers @mintlify on its pull requests: a request would go twice.
    for (const phrase of ['@mintlify', '@Mintlify please', '@mintlify-bot'])
      expect(() => inputs({ trigger: phrase })).toThrow('Input "trigger" starts with @mintlify');
    expect(inputs({ trigger: '/mintlify' }).trigger).toBe('/mintlify');
  });
});
