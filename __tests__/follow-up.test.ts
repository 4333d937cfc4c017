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
    for (const action of ['opened', 'synchronize', 'reopened', 'ready_for_review', 'edited'])
      expect(threadStep(pull(action), false, {})).toBe('change');
    // Neither a request nor a change: nothing for the docs to follow.
    for (const action of ['locked', 'assigned', 'labeled', 'converted_to_draft', 'auto_merge_enabled'])
      expect(threadStep(pull(action), false, {})).toBe('inert');
    for (const action of ['closed', 'locked', 'assigned', 'deleted'])
      expect(threadStep(parseEvent('issues', { action, issue: { number: 3 } }), false, {})).toBe('inert');
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
  const steps: ThreadStep[] = ['request', 'merge', 'change', 'closed', 'inert', 'other'];
  const held = (policy: 'every-push' | 'at-merge' | 'on-request', job?: string, unread = false) =>
    steps.filter((step) => heldByPolicy(policy, step, job, unread) !== undefined);

  it('every-push holds back only what neither asks nor changes: a close unmerged, a lock …, job or not', () => {
    expect(held('every-push', 'job-1')).toEqual(['closed', 'inert']);
    // A new thread's first such event creates no job.
    expect(held('every-push')).toEqual(['closed', 'inert']);
  });

  it('at-merge: once the job exists, a change to the pull request sends nothing; the first change creates it', () => {
    // An issue's events and reviews are no pushes: they send as under every-push.
    expect(held('at-merge', 'job-1')).toEqual(['change', 'closed', 'inert']);
    expect(held('at-merge')).toEqual(['closed', 'inert']);
    expect(heldByPolicy('at-merge', 'change', 'job-1', false)?.status).toBe('Docs follow at the merge');
    // The words the demo shows a newcomer (demo.test.ts pins them too, in the process tier).
    expect(heldByPolicy('at-merge', 'change', 'job-1', false)?.notice).toBe(
      'Skipped: followUp is at-merge, so this sends nothing; job job-1 gets everything since it last looked when the pull request merges (or when someone asks).',
    );
  });

  it('on-request: only requests send, job or not', () => {
    expect(held('on-request', 'job-1')).toEqual(['merge', 'change', 'closed', 'inert', 'other']);
    expect(held('on-request')).toEqual(['merge', 'change', 'closed', 'inert', 'other']);
  });

  it('a merge the note says its job was told is held under every policy: the other event of that merge', () => {
    const note = { job: 'job-1', merged: 41 };
    for (const policy of ['every-push', 'at-merge'] as const) {
      expect(heldByPolicy(policy, 'merge', 'job-1', false, note)).toEqual({
        notice: 'Skipped: run 41 already told job job-1 of this merge, so nothing was sent.',
        status: 'Merge already sent',
      });
      // Another job of the thread was never told; a change is no merge.
      expect(heldByPolicy(policy, 'merge', 'job-2', false, note)).toBeUndefined();
      expect(heldByPolicy(policy, 'merge', 'job-1', false, { job: 'job-1' })).toBeUndefined();
    }
    expect(heldByPolicy('every-push', 'change', 'job-1', false, note)).toBeUndefined();
  });

  it('at-merge holds nothing back when GitHub could not tell whether a push is the merge; on-request still holds', () => {
    expect(held('at-merge', 'job-1', true)).toEqual(['closed', 'inert']);
    expect(held('on-request', 'job-1', true)).toEqual(['merge', 'change', 'closed', 'inert', 'other']);
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
