// The follow-up policy's rules, as plain functions: what a run is to its thread, whether the policy
// holds it back, and what counts as nothing new.
import { describe, expect, it } from '@jest/globals';
import { parseEvent } from '../src/core/event.js';
import { heldByPolicy, nothingNew, threadStep, type ThreadStep } from '../src/decide/follow-up.js';

const pull = (action: string, merged?: boolean) =>
  parseEvent('pull_request', {
    action,
    pull_request: { number: 5, ...(merged === undefined ? {} : { merged }) },
  });

describe('threadStep', () => {
  it('reads a request, the merge, a change, a close and anything else', () => {
    expect(threadStep(pull('synchronize'), true, {})).toBe('request');
    expect(threadStep(pull('closed', true), false, {})).toBe('merge');
    expect(threadStep(pull('closed', false), false, {})).toBe('closed');
    for (const action of ['opened', 'synchronize', 'reopened', 'ready_for_review'])
      expect(threadStep(pull(action), false, {})).toBe('change');
    const push = parseEvent('push', { ref: 'refs/heads/topic', after: '2'.repeat(40) });
    expect(threadStep(push, false, { merge: true })).toBe('merge');
    // A branch pushed to directly: every push is a merge.
    expect(threadStep(push, false, { branch: true })).toBe('merge');
    expect(threadStep(push, false, {})).toBe('change');
    expect(threadStep(parseEvent('issues', { action: 'edited', issue: { number: 3 } }), false, {})).toBe(
      'other',
    );
  });
});

describe('heldByPolicy', () => {
  const steps: ThreadStep[] = ['request', 'merge', 'change', 'closed', 'other'];
  const held = (policy: 'every-push' | 'at-merge' | 'on-request', job?: string, unread = false) =>
    steps.filter((step) => heldByPolicy(policy, step, job, unread) !== undefined);

  it('every-push holds nothing back', () => {
    expect(held('every-push', 'job-1')).toEqual([]);
  });

  it('at-merge: once the job exists, a change to the pull request sends nothing; the first change creates it', () => {
    // An issue's events and reviews are no pushes: they send as under every-push.
    expect(held('at-merge', 'job-1')).toEqual(['change', 'closed']);
    expect(held('at-merge')).toEqual(['closed']);
    expect(heldByPolicy('at-merge', 'change', 'job-1', false)?.status).toBe('Docs follow at the merge');
  });

  it('on-request: only requests send, job or not', () => {
    expect(held('on-request', 'job-1')).toEqual(['merge', 'change', 'closed', 'other']);
    expect(held('on-request')).toEqual(['merge', 'change', 'closed', 'other']);
  });

  it('at-merge holds nothing back when GitHub could not tell whether a push is the merge; on-request still holds', () => {
    expect(held('at-merge', 'job-1', true)).toEqual([]);
    expect(held('on-request', 'job-1', true)).toEqual(['merge', 'change', 'closed', 'other']);
  });
});

describe('nothingNew', () => {
  const since = '1'.repeat(40);
  it('only an empty comparison GitHub made counts', () => {
    expect(nothingNew({ files: [], compared: true }, since, 'job-1')?.status).toBe(
      'Nothing new since the job last looked',
    );
    expect(nothingNew({ files: [] }, since, 'job-1')).toBeUndefined();
    expect(nothingNew({ files: [], compared: true, partial: 'cut' }, since, 'job-1')).toBeUndefined();
    expect(nothingNew({ files: ['a.ts'], compared: true }, since, 'job-1')).toBeUndefined();
    expect(nothingNew({ unreadable: 'GitHub said 502.' }, since, 'job-1')).toBeUndefined();
  });
});
