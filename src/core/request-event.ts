// The events of a thread's runs, rebuilt: a report run that has written the end of a job a thread
// was waiting for sends what the thread asked for meanwhile by playing the run that would have:
// the newest request's, or a push's to the pull request's head.
import { parseEvent, type Payload, type RunEvent } from './event.js';

/** The `created` comment event GitHub would have sent for `comment` on thread `number`. */
export function commentRequestEvent(
  number: number,
  pull: boolean,
  comment: { id: number; body: string; login: string; bot: boolean },
): { event: RunEvent; payload: Payload } {
  const user = { login: comment.login, type: comment.bot ? 'Bot' : 'User' };
  const payload = {
    action: 'created',
    issue: { number, ...(pull ? { pull_request: {} } : {}) },
    comment: { id: comment.id, body: comment.body, user },
    sender: user,
  };
  return { event: parseEvent('issue_comment', payload), payload };
}

/** The `synchronize` event GitHub sends when pull request `number`'s head moves to `head`. */
export function pullHeadEvent(number: number, head: string): { event: RunEvent; payload: Payload } {
  const payload = { action: 'synchronize', number, pull_request: { number, head: { sha: head } } };
  return { event: parseEvent('pull_request', payload), payload };
}

/** The `pull_request` event GitHub sends when pull request `number` merges with `head` as its head. */
export function pullMergeEvent(number: number, head: string): { event: RunEvent; payload: Payload } {
  const payload = { action: 'closed', number, pull_request: { number, merged: true, head: { sha: head } } };
  return { event: parseEvent('pull_request', payload), payload };
}

/** The `push` event GitHub sends when the default branch (`branch`, when known) moves from `before` to `after`. */
export function branchPushEvent(
  before: string,
  after: string,
  branch?: string,
): { event: RunEvent; payload: Payload } {
  const payload = { ...(branch ? { ref: `refs/heads/${branch}` } : {}), before, after };
  return { event: parseEvent('push', payload), payload };
}

/**
 * An event of thread `number` that asks for nothing and changes nothing (`assigned`, of a pull
 * request at `head`, or of an issue): a lane run's pass that carries only what was asked on the
 * thread's docs pull request, which no `followUp` holds; with nothing owed there, every policy
 * holds it (nothing that changed is sent for it), and it writes nothing.
 */
export function quietEvent(number: number, head?: string): { event: RunEvent; payload: Payload } {
  if (head === undefined) {
    const payload = { action: 'assigned', issue: { number } };
    return { event: parseEvent('issues', payload), payload };
  }
  const payload = { action: 'assigned', number, pull_request: { number, head: { sha: head } } };
  return { event: parseEvent('pull_request', payload), payload };
}
