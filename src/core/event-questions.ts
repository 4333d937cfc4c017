// What a parsed event means to the action's rules, asked in one place: whether its run gets no
// secrets (a fork's pull request), what a pull request event is to its thread.
import type { RunEvent } from './event.js';

/**
 * The pull request from another repository on an event whose run gets a read-only token and no
 * secrets (`pull_request`, a review, a review comment; `pull_request_target` runs with the base
 * repository's), with that repository's name while GitHub still has it.
 */
export function secretlessFork(event: RunEvent): { repo?: string } | undefined {
  const secretless =
    (event.kind === 'pull-request' && !event.target) ||
    event.kind === 'review' ||
    (event.kind === 'comment' && event.review);
  return secretless ? event.pull?.fork : undefined;
}

/**
 * What a pull request event is to its thread: `merge` (closed as merged), `closed` (closed
 * unmerged), else `change` (opened, a push, reopened, ready for review, edited, …). Any other
 * event is `undefined`.
 */
export function pullRequestStep(event: RunEvent): 'merge' | 'closed' | 'change' | undefined {
  if (event.kind !== 'pull-request') return undefined;
  if (event.action !== 'closed') return 'change';
  return event.pull?.merged === true ? 'merge' : 'closed';
}
