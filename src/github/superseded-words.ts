// What the kept comment says of a docs pull request an earlier job of the thread left (its
// follow-ups refused): one sentence for each fate, so the comment never promises a close that did
// not happen.
import { inert } from '../core/untrusted.js';

/**
 * What became of a docs pull request an earlier job of the thread left: `closed` (with a comment
 * linking its successor), `kept` (the comment only: someone else committed to it), `foreign` (the
 * comment only: another account than its successor's opened it), `waiting` (for the thread's job
 * to have a docs pull request), `gone` (no longer open); left open: `unrecorded` (the service named
 * it, the thread's record does not hold it as the earlier job's), `no-token` (no token given may
 * close it), `unreachable` (not a pull request the action reaches), `thread` (a pull request this
 * action keeps a thread on), `refused` (GitHub refused), `unanswered` (GitHub did not answer: a
 * later run tries again), `open` (nothing more to say: no successor to close it for).
 */
export type SupersededFate =
  | 'closed'
  | 'kept'
  | 'foreign'
  | 'waiting'
  | 'gone'
  | 'unrecorded'
  | 'no-token'
  | 'unreachable'
  | 'thread'
  | 'refused'
  | 'unanswered'
  | 'open';

export interface Superseded {
  link: string;
  fate: SupersededFate;
  /** The comment that links its successor could not be posted on it. */
  commented?: false;
}

/**
 * What became of an earlier docs pull request (`pr`, a live link), in one sentence; `earlierJob`,
 * the job the service named it for, when known.
 */
export function fateSentence(
  pr: string,
  { fate, commented }: Pick<Superseded, 'fate' | 'commented'>,
  jobId: string,
  earlierJob?: string,
): string {
  const earlier = `The earlier docs pull request ${pr}`;
  const linked =
    commented === false
      ? 'the comment that would link its successor could not be posted on it'
      : 'a comment on it links its successor';
  switch (fate) {
    case 'closed':
      return commented === false
        ? `${earlier} was closed; the comment that would link its successor could not be posted on it.`
        : `${earlier} was closed, with a comment that links its successor.`;
    case 'kept':
      return `${earlier} stays open, as someone other than its opener committed to it; ${linked}.`;
    case 'foreign':
      return `${earlier} stays open, as the account that opened its successor did not open it; ${linked}.`;
    case 'waiting':
      return `${earlier} stays open while job ${inert(jobId)} has no docs pull request; the thread's run that finds one closes the earlier one then, or says why it cannot.`;
    case 'gone':
      return `${earlier} is no longer open.`;
    case 'unrecorded':
      return `The service names ${pr} as ${earlierJob ? `job ${inert(earlierJob)}'s` : "an earlier job's"} docs pull request, but the thread's record does not: it is not closed.`;
    case 'no-token':
      return `${earlier} stays open: no docsToken was given, and the workflow's own token closes pull requests only in this repository.`;
    case 'unreachable':
      return `${earlier} stays open: it is not a pull request this action can reach.`;
    case 'thread':
      return `${earlier} stays open: it is a pull request this action keeps a docs thread on, not a docs pull request.`;
    case 'refused':
      return `${earlier} stays open: GitHub refused to close it (the workflow run's warning says why).`;
    case 'unanswered':
      return `${earlier} stays open for now: GitHub did not answer; a later run of the thread tries again.`;
    case 'open':
      return `${earlier} stays open.`;
  }
}
