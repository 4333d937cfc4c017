// What a thread's later runs send (`followUp`), and the two ways a push-like run finds it has
// nothing to send: a newer push's run carries its changes, or nothing changed since the job last
// looked. Each quota use is an agent pass: a thread sends when the docs have something new to see.
import type { RunEvent } from '../core/event.js';
import { pullRequestStep } from '../core/event-questions.js';
import type { Changed, Moment, ThreadNote } from '../core/ports.js';
import { label } from '../core/untrusted.js';

/** `followUp`: which later events of a thread send to its job. */
export const FOLLOW_UP_POLICIES = ['every-push', 'at-merge', 'on-request'] as const;
export type FollowUpPolicy = (typeof FOLLOW_UP_POLICIES)[number];

/**
 * What the run is to its thread: a request (someone asked), the merge (of the pull request, or any
 * push to a branch pushed to directly), a change (opened, a push, reopened, ready for review,
 * edited, a run that follows one), the pull request closed unmerged, an event that neither asks
 * nor changes anything (`inert`: locked, assigned, closed, a label that is no request …), or
 * anything else (an issue opened, edited or reopened; a review).
 */
export type ThreadStep = 'request' | 'merge' | 'change' | 'closed' | 'inert' | 'other';

/** The actions of a pull request or an issue that change what its docs are about. */
const PULL_CHANGES = new Set(['opened', 'synchronize', 'reopened', 'ready_for_review', 'edited']);
const ISSUE_CHANGES = new Set(['opened', 'edited', 'reopened']);

export function threadStep(event: RunEvent, asked: boolean, moment: Moment): ThreadStep {
  if (asked) return 'request';
  const step = pullRequestStep(event);
  if (step === 'change' && !PULL_CHANGES.has(event.action ?? '')) return 'inert';
  if (step) return step;
  if (event.kind === 'issue' && !ISSUE_CHANGES.has(event.action ?? '')) return 'inert';
  if (event.kind === 'push') return moment.merge || moment.branch ? 'merge' : 'change';
  return event.kind === 'workflow-run' ? 'change' : 'other';
}

/** A run that sends nothing: its notice, and its success status's words (which name the job). */
export interface Held {
  notice: string;
  status: string;
}

/**
 * Whether `followUp` holds this run back: `on-request` sends only requests; `at-merge` holds a
 * change to a pull request once the thread has its job (`job`), and a pull request closed unmerged.
 * `unread`: GitHub could not tell whether a push is the merge, which `at-merge` never guesses. Under
 * every policy, a merge the thread's note says its job was told is not told again: a workflow may
 * hear both the pull request's `closed` and its merge commit's push, and the second brings nothing.
 */
export function heldByPolicy(
  policy: FollowUpPolicy,
  step: ThreadStep,
  job: string | undefined,
  unread: boolean,
  note?: Pick<ThreadNote, 'job' | 'merged'>,
): Held | undefined {
  if (step === 'request') return undefined;
  const named = job ? `job ${label(job)}` : 'the thread’s job';
  // Under every policy: no one asked, and nothing changed that the docs could follow.
  if (step === 'inert') {
    return {
      notice: `Skipped: this event neither asks for docs nor changes the code, so ${named} gets nothing from it.`,
      status: 'Nothing to document in this event',
    };
  }
  if (step === 'closed') {
    return {
      notice: `Skipped: the pull request was closed without merging: ${named} gets nothing from it.`,
      status: 'Closed unmerged: no docs to follow',
    };
  }
  if (step === 'merge' && note?.merged !== undefined && job !== undefined && note.job === job) {
    return {
      notice: `Skipped: run ${note.merged} already told ${named} of this merge, so nothing was sent.`,
      status: 'Merge already sent',
    };
  }
  if (policy === 'every-push') return undefined;
  if (policy === 'on-request') {
    return {
      notice: `Skipped: followUp is on-request, so only a request sends to ${named} (a comment with the trigger phrase, triggerLabel, or a run by hand).`,
      status: 'Docs follow on request',
    };
  }
  if (step === 'merge' || step === 'other' || unread) return undefined;
  // The first change of a thread creates its job.
  if (!job) return undefined;
  return {
    notice: `Skipped: followUp is at-merge, so this sends nothing; ${named} gets everything since it last looked when the pull request merges (or when someone asks).`,
    status: 'Docs follow at the merge',
  };
}

/** A push-like run overtaken by a newer push to its pull request or branch: the newer one's run carries it. */
export function overtaken(newerHead: string, branch = false): Held {
  return {
    notice: `Skipped: the ${branch ? 'branch' : "pull request's head"} has moved on to ${label(newerHead.slice(0, 12))}; the run for that push carries these changes (everything since the job last looked).`,
    status: 'A newer push carries this change',
  };
}

/**
 * Whether a comparison GitHub made since the head the job last saw lists no file: then there is
 * nothing new to send. A list GitHub could not give, or may have given in part, is no evidence.
 */
export function nothingNew(changed: Changed, since: string, job: string | undefined): Held | undefined {
  if ('unreadable' in changed || !changed.compared || changed.partial || changed.files.length > 0)
    return undefined;
  const named = job ? `job ${label(job)}` : 'the thread’s job';
  return {
    notice: `Skipped: nothing changed since ${named} last looked (at ${label(since.slice(0, 12))}), so nothing was sent.`,
    status: 'Nothing new since the job last looked',
  };
}
