// The rule that refuses a branch's thread with nowhere to keep its job (`thread` without `status`,
// on a push no pull request contains), as a plain function.
import { describe, expect, it } from '@jest/globals';
import { parseEvent } from '../src/core/event.js';
import { unkeptBranch } from '../src/decide/branch-thread.js';

const push = (ref: string, extra: Record<string, unknown> = {}) =>
  parseEvent('push', { ref, before: '1'.repeat(40), after: '2'.repeat(40), ...extra });
const thread = { thread: true, status: false };

describe('unkeptBranch', () => {
  it('refuses a thread’s push to a branch no pull request contains, naming status', () => {
    expect(unkeptBranch(thread, push('refs/heads/feature/x'), { branch: true })).toMatch(
      /^Input "status" is false, but thread is true and this push to the branch "feature\/x" is in no pull request: .* Set status: true/,
    );
  });

  it('takes what works today: status on, no thread, a pull request’s push, a tag, a deleted branch, other events', () => {
    const branch = { branch: true };
    expect(unkeptBranch({ thread: true, status: true }, push('refs/heads/main'), branch)).toBeUndefined();
    expect(unkeptBranch({ thread: false, status: false }, push('refs/heads/main'), branch)).toBeUndefined();
    // GitHub found a pull request that contains the commit (its branch, or its merge).
    expect(unkeptBranch(thread, push('refs/heads/main'), {})).toBeUndefined();
    // A status keeps no tag's job either: each tag is new.
    expect(unkeptBranch(thread, push('refs/tags/v1.2.0'), branch)).toBeUndefined();
    expect(unkeptBranch(thread, push('refs/heads/old', { deleted: true }), branch)).toBeUndefined();
    expect(unkeptBranch(thread, parseEvent('workflow_dispatch', {}), branch)).toBeUndefined();
  });
});
