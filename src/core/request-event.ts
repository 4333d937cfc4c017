// The event a `/docs` comment's run has, rebuilt: a report run that sends the requests queued on a
// thread while its job worked plays the run the newest of them would have had.
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
