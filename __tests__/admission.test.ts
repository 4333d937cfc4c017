// Whether a run acts at all, decided from the event before anything is sent: which comments are
// `/docs` requests, who may start a job from events anyone can cause, and the prompt a request
// makes.
import { describe, expect, it } from '@jest/globals';
import { commentEvent, pullRequestEvent } from '../__fixtures__/github-world.js';
import { admit, type Admission } from '../src/admission.js';
import type { RunnerEvent } from '../src/event.js';
import { gate } from '../src/gate.js';
import { readInputs, type Inputs } from '../src/inputs.js';
import { readRequest } from '../src/trigger.js';

const event = (e: { name: string; payload: unknown }) => e as RunnerEvent;

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
  return readInputs((name) => values[name] ?? '', process.cwd(), { GITHUB_EVENT_NAME: eventName });
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

describe('who may start a job', () => {
  it.each([
    ['a member, by the comment', commentEvent(3, '/docs x'), [], 'allowed'],
    ['an owner', commentEvent(3, '/docs x', { association: 'OWNER' }), [], 'allowed'],
    ['a collaborator', commentEvent(3, '/docs x', { association: 'COLLABORATOR' }), [], 'allowed'],
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
    ["a fork's pull request by a member", pullRequestEvent(3, 'someone/app'), [], 'allowed'],
  ])('%s', (_name, e, allowed, kind) => {
    expect(gate(event(e), allowed).kind).toBe(kind);
  });

  it("counts an association only when it is the sender's own", () => {
    // A member's pull request, pushed to by someone else: the association is the member's.
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
    expect(gate(event({ name: 'issues', payload }), [], 'a')).toEqual({ kind: 'allowed', actor: 'a' });
  });
});

describe('admit', () => {
  const go = (admission: Admission) => (admission.kind === 'go' ? admission : undefined);
  const noRole = () => Promise.reject(new Error('GitHub must not be asked'));

  it('sends the standing prompt, then the request', async () => {
    const admitted = await admit(
      inputs({ prompt: 'Keep the style guide.' }),
      event(commentEvent(3, '/docs document the flag')),
      readRequest('/docs', event(commentEvent(3, '/docs document the flag'))),
      noRole,
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
    const admitted = await admit(inputs(), e, readRequest('/docs', e), noRole);
    expect(admitted).toMatchObject({
      kind: 'skip',
      answer: expect.stringContaining('write what the docs need after /docs'),
    });
    const standing = await admit(
      inputs({ prompt: 'Refresh the API pages.' }),
      e,
      readRequest('/docs', e),
      noRole,
    );
    expect(go(standing)?.prompt).toBe('Refresh the API pages.');
  });

  it.each([
    ['write', ''],
    ['maintain', ''],
    ['admin', ''],
    ['triage', 'their role on the repository is triage, and a job needs write access'],
    ['read', 'their role on the repository is read, and a job needs write access'],
    [undefined, 'GitHub could not tell whether they have write access'],
  ])("asks GitHub for an outsider's role: %s", async (role, refusedFor) => {
    const e = event(commentEvent(3, '/docs x', { login: 'stranger', association: 'CONTRIBUTOR' }));
    const asked: string[] = [];
    const admitted = await admit(inputs(), e, readRequest('/docs', e), async (actor) => {
      asked.push(actor);
      return role;
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
  });
});
