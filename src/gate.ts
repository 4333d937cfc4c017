import { pullRequestFork, text, type Authored, type RunnerEvent } from './event.js';
import { label } from './untrusted.js';

/**
 * Events that anyone who can see the repository can cause: on them, a job starts or goes on only
 * for someone with write access, or named in `allowedActors`. Events that need write access to
 * cause (`push`, `schedule`, `workflow_dispatch`, `release`, …) are not checked.
 */
const OPEN_EVENTS = new Set([
  'issue_comment',
  'pull_request_review_comment',
  'pull_request_review',
  'issues',
  'discussion',
  'discussion_comment',
  'pull_request_target',
]);

/** `author_association` values that mean write access to the repository. */
const WRITERS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);
/** Collaborator roles (`role_name`) that mean write access. */
export const WRITER_ROLES = new Set(['admin', 'maintain', 'write']);

/** Whether the gate may have to look at this event's payload (a `pull_request` only if from a fork). */
export function mayBeOpen(eventName: string): boolean {
  return OPEN_EVENTS.has(eventName) || eventName === 'pull_request';
}

export type Gate =
  /** The event needs write access to cause, or is a pull request from this repository. */
  | { kind: 'open' }
  | { kind: 'allowed'; actor: string }
  | { kind: 'refused'; actor: string; rule: string }
  /** The payload does not tell: ask GitHub for the actor's role on the repository. */
  | { kind: 'ask'; actor: string };

/**
 * Who may start (or continue) a job from this event, as far as the payload tells. An
 * `author_association` counts only when it describes the event's sender: a push to someone else's
 * pull request, or a review of it, is not their own.
 */
export function gate(event: RunnerEvent, allowedActors: string[], fallbackActor = ''): Gate {
  const { payload } = event;
  if (!OPEN_EVENTS.has(event.name) && !(event.name === 'pull_request' && pullRequestFork(payload))) {
    return { kind: 'open' };
  }
  const actor = text(payload.sender?.login) ?? fallbackActor;
  const named = (login: string) => allowedActors.some((a) => a.toLowerCase() === login.toLowerCase());
  if (!actor) return { kind: 'refused', actor: '(unknown)', rule: 'the event names no sender' };
  const bot = actor.toLowerCase().endsWith('[bot]') || payload.sender?.type === 'Bot';
  if (bot) {
    return named(actor)
      ? { kind: 'allowed', actor }
      : {
          kind: 'refused',
          actor,
          rule: 'a bot starts a job only when allowedActors names it',
        };
  }
  if (named(actor) || allowedActors.includes('*')) return { kind: 'allowed', actor };
  const authored = authoredBySender(event, actor);
  if (authored && WRITERS.has(text(authored.author_association) ?? '')) return { kind: 'allowed', actor };
  return { kind: 'ask', actor };
}

/** The refusal's one notice. */
export function refusal(actor: string, rule: string): string {
  return `Skipped: ${label(actor)} may not start a docs job here: ${rule}. People with write access to the repository may; allowedActors can name others.`;
}

/** The comment, review, issue or pull request the event is about, when its author is the sender. */
function authoredBySender(event: RunnerEvent, actor: string): Authored | undefined {
  const { payload } = event;
  const object =
    event.name === 'issue_comment' ||
    event.name === 'pull_request_review_comment' ||
    event.name === 'discussion_comment'
      ? payload.comment
      : event.name === 'pull_request_review'
        ? payload.review
        : event.name === 'issues'
          ? payload.issue
          : event.name === 'discussion'
            ? payload.discussion
            : payload.pull_request;
  const author = text(object?.user?.login);
  return author && author.toLowerCase() === actor.toLowerCase() ? object : undefined;
}
