// Which GitHub work a run does, decided once from its inputs and its event: a table of inputs ×
// event → features, read through `readSetup` as `run()` reads them.
import { describe, expect, it } from '@jest/globals';
import { commentEvent, pullRequestEvent, pushEvent, runContext } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import { parseEvent } from '../src/core/event.js';
import { eventNeeds, type Features } from '../src/decide/features.js';
import { readSetup } from '../src/decide/setup.js';

const BASE: Record<string, string> = {
  prompt: 'Document the change.',
  projectId: 'proj',
  apiKey: 'mint_features_key',
  baseUrl: 'https://api.example.com',
  wait: 'true',
  timeout: '10m',
  pollInterval: '10s',
  githubToken: WORKFLOW_TOKEN,
};

const NONE: Features = {
  load: false,
  asked: false,
  comment: false,
  thread: false,
  recall: false,
  context: false,
  paths: false,
  moment: false,
  dryRun: false,
  sweep: false,
};

type Named = { name: string; payload: unknown };
const labelled = (label: string): Named => {
  const e = pullRequestEvent(3);
  return { ...e, payload: { ...e.payload, action: 'labeled', label: { name: label } } };
};
const schedule: Named = { name: 'schedule', payload: {} };

function setupOf(given: Record<string, string>, event: Named, runAttempt = 1) {
  const values = { ...BASE, ...given };
  const context = runContext({ eventName: event.name, payload: event.payload as never, runAttempt });
  return readSetup((name) => values[name] ?? '', context);
}

describe('features', () => {
  it.each<[string, Record<string, string>, Named, Partial<Features>]>([
    ['nothing asked, on a schedule', {}, schedule, {}],
    ['nothing asked, on a push', {}, pushEvent('b'.repeat(40)), {}],
    [
      "nothing asked, on a fork's pull request: who caused it may be looked up",
      {},
      pullRequestEvent(3, 'x/app'),
      {},
    ],
    ['comment', { comment: 'true' }, schedule, { load: true, comment: true }],
    [
      'thread: the comment keeps it',
      { thread: 'true' },
      schedule,
      { load: true, comment: true, thread: true, recall: true },
    ],
    ['status', { status: 'true' }, schedule, { load: true, recall: true }],
    ['context', { context: 'auto' }, schedule, { load: true, context: true }],
    ['labels and reviewers', { labels: 'docs', reviewers: 'octocat' }, schedule, { load: true }],
    ['autoMerge', { autoMerge: 'squash' }, schedule, { load: true }],
    ['paths on a push', { paths: 'docs/**' }, pushEvent('b'.repeat(40)), { load: true, paths: true }],
    ['paths on a pull request', { paths: 'docs/**' }, pullRequestEvent(3), { load: true, paths: true }],
    ['paths on a schedule: nothing to match', { paths: 'docs/**' }, schedule, {}],
    ['trigger, and a comment that is no request', { trigger: '/docs' }, commentEvent(3, 'LGTM'), {}],
    ['trigger on a push: no comment to read', { trigger: '/docs' }, pushEvent('b'.repeat(40)), {}],
    [
      'a /docs request: answered where it was asked, with a reaction',
      { trigger: '/docs', paths: 'docs/**' },
      commentEvent(3, '/docs more', { id: 77 }),
      { load: true, asked: true, comment: true, reaction: { id: 77, review: false } },
    ],
    [
      'triggerLabel applied: asked, so paths do not gate, and the label comes off',
      { triggerLabel: 'docs', paths: 'docs/**' },
      labelled('Docs'),
      { load: true, asked: true, comment: true, removeLabel: 'Docs' },
    ],
    [
      'another label: skipped, nothing loads',
      { triggerLabel: 'docs', comment: 'true' },
      labelled('bug'),
      { comment: true },
    ],
    [
      'a dry run of a /docs request: read as usual, no reaction, no docs PR touched',
      {
        dryRun: 'true',
        trigger: '/docs',
        thread: 'true',
        status: 'true',
        labels: 'docs',
        autoMerge: 'squash',
      },
      commentEvent(3, '/docs more', { id: 77 }),
      {
        load: true,
        asked: true,
        comment: true,
        thread: true,
        recall: true,
        dryRun: true,
      },
    ],
    [
      'a dry run of triggerLabel applied: the label stays on',
      { dryRun: 'true', triggerLabel: 'docs' },
      labelled('Docs'),
      { load: true, asked: true, comment: true, dryRun: true },
    ],
    [
      'a run by hand: asked (paths, followUp and a closed docs PR do not stop it), no comment unless asked for',
      { paths: 'docs/**', thread: 'true' },
      { name: 'workflow_dispatch', payload: {} },
      { load: true, asked: true, comment: true, thread: true, recall: true },
    ],
    [
      'a deleted branch: skipped, nothing loads',
      { status: 'true' },
      pushEvent('0'.repeat(40), { deleted: true }),
      { recall: true },
    ],
  ])('%s', (_case, given, event, expected) => {
    expect(setupOf(given, event).features).toEqual({ ...NONE, ...expected });
  });

  it('reads what the comment remembers on a re-run, where it names the earlier attempt’s job', () => {
    expect(setupOf({ comment: 'true' }, schedule, 2).features).toEqual({
      ...NONE,
      load: true,
      comment: true,
      recall: true,
    });
  });

  it('hands the GitHub side inputs whose comment says what the features say', () => {
    expect(setupOf({ thread: 'true' }, schedule).inputs.comment).toBe(true);
    expect(setupOf({ trigger: '/docs' }, commentEvent(3, '/docs x')).inputs.comment).toBe(true);
    expect(setupOf({ trigger: '/docs' }, commentEvent(3, 'LGTM')).inputs.comment).toBe(false);
  });

  it('tells the inputs what the event means for them', () => {
    const fork = pullRequestEvent(3, 'someone/app');
    expect(eventNeeds(parseEvent(fork.name, fork.payload))).toEqual({
      commentAsks: false,
      accessLookUp: true,
      secretlessFork: { repo: 'someone/app' },
    });
    expect(eventNeeds(parseEvent('pull_request_target', fork.payload))).toEqual({
      commentAsks: false,
      accessLookUp: true,
    });
    expect(eventNeeds(parseEvent('issue_comment', {}))).toEqual({ commentAsks: true, accessLookUp: true });
    expect(eventNeeds(parseEvent('push', {}))).toEqual({ commentAsks: false, accessLookUp: false });
  });
});

describe('a thread that does not wait, on an event of no thread', () => {
  const SWEEP: Features = { ...NONE, load: true, sweep: true };
  const botsPull = (): Named => {
    const e = pullRequestEvent(9);
    const pull = (e.payload as { pull_request: Record<string, unknown> }).pull_request;
    return {
      ...e,
      payload: { ...e.payload, pull_request: { ...pull, user: { login: 'docs[bot]', type: 'Bot' } } },
    };
  };
  const threadNoWait = { thread: 'true', wait: 'false' };

  it.each<[string, Record<string, string>, Named]>([
    ['a schedule', threadNoWait, schedule],
    ['a run by hand that names no thread', threadNoWait, { name: 'workflow_dispatch', payload: {} }],
    ["another repository's dispatch", threadNoWait, { name: 'repository_dispatch', payload: {} }],
    ["a bot's pull request (the docs service's docs PR)", threadNoWait, botsPull()],
  ])('is a report run: %s', (_name, given, event) => {
    expect(setupOf(given, event).features).toEqual(SWEEP);
  });

  it("a dispatch naming a thread is that thread's lane run", () => {
    const lane = { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-thread': '12' } } };
    expect(setupOf(threadNoWait, lane).features).toEqual({ ...SWEEP, lane: 12 });
  });

  it('is a thread run on its own events, and when waiting, or when allowedActors names the bot', () => {
    expect(setupOf(threadNoWait, pullRequestEvent(9)).features.sweep).toBe(false);
    expect(setupOf({ thread: 'true' }, schedule).features.sweep).toBe(false);
    expect(setupOf({ ...threadNoWait, allowedActors: 'docs[bot]' }, botsPull()).features.sweep).toBe(false);
  });
});
