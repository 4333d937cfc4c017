// A branch's thread keeps its job in this step's commit statuses (a branch has no comment to hold
// a note): without `status` it has nowhere to keep it, and every push would start a job of its own.
// Whether a push is a branch's is known only once GitHub says no pull request contains its commit
// (a push to a pull request's branch, or its merge, is that pull request's thread, kept in its
// comment), so the rule is applied then, before anything is sent.
import type { RunEvent } from '../core/event.js';
import type { Moment } from '../core/ports.js';
import { quote } from '../core/untrusted.js';
import type { Inputs } from './inputs.js';

/**
 * Why the run is refused: a thread's push to a branch (not a tag: no status keeps a tag's job
 * either, each tag is new) that no pull request contains, with `status` off; else `undefined`.
 * `moment.branch` is GitHub's word that no pull request contains the pushed commit.
 */
export function unkeptBranch(
  inputs: Pick<Inputs, 'thread' | 'status'>,
  event: RunEvent,
  moment: Pick<Moment, 'branch'>,
): string | undefined {
  if (!inputs.thread || inputs.status || event.kind !== 'push' || event.deleted || !moment.branch)
    return undefined;
  const branch = event.ref?.startsWith('refs/heads/') ? event.ref.slice('refs/heads/'.length) : undefined;
  if (branch === undefined) return undefined;
  return `Input "status" is false, but thread is true and this push to the branch ${quote(branch, 100)} is in no pull request: a branch's thread keeps its job in this step's commit statuses, so without status every push to it would start a new job. Set status: true (with statuses: write) to keep one job for the branch, or run the thread's step only on pull request events. Nothing was sent.`;
}
