import { pullRequestFork, text, type Account, type Payload, type RunnerEvent } from './event.js';
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

/**
 * The collaborator-permission API's `permission` values that mean write access. `permission` is
 * the base role GitHub folds every role into — `maintain` and custom roles based on write read
 * `write` — while `role_name` carries a custom role's own name, so only `permission` is compared.
 */
const WRITE_PERMISSIONS = new Set(['admin', 'write']);

/** An actor's access to the repository, as GitHub's collaborator-permission API tells it. */
export interface Access {
  /** `admin`, `write`, `read` or `none`. */
  permission: string;
  /** The role's name (`maintain`, `triage`, a custom role's own name), for the notice. */
  role: string;
}

export function hasWriteAccess(access: Access): boolean {
  return WRITE_PERMISSIONS.has(access.permission);
}

/** Whether the gate may have to look at this event's payload. */
export function mayBeOpen(eventName: string): boolean {
  return OPEN_EVENTS.has(eventName) || eventName === 'pull_request' || eventName === 'workflow_run';
}

export type Gate =
  /** The event needs write access to cause, or is a pull request from this repository. */
  | { kind: 'open' }
  | { kind: 'allowed'; actor: string }
  | { kind: 'refused'; actor: string; rule: string }
  /** Ask GitHub whether the actor has write access to the repository. */
  | { kind: 'ask'; actor: string };

/**
 * Who may start (or continue) a job from this event, as far as the payload tells. The payload's
 * `author_association` is never write access: `MEMBER` is membership of the owning organisation
 * and `COLLABORATOR` any invited role, read and triage included. Only the owner of a repository
 * owned by a user is known to have it without asking.
 */
export function gate(
  event: RunnerEvent,
  allowedActors: string[],
  fallbackActor = '',
  /** A label request: applying a label needs only triage, so the labeller is always checked. */
  labelled = false,
): Gate {
  const { payload } = event;
  if (!labelled && !anyoneCanCause(event)) return { kind: 'open' };
  const who = actorOf(event);
  const actor = text(who?.login) ?? fallbackActor;
  const named = (login: string) => allowedActors.some((a) => a.toLowerCase() === login.toLowerCase());
  if (!actor) return { kind: 'refused', actor: '(unknown)', rule: 'the event names no sender' };
  const bot = actor.toLowerCase().endsWith('[bot]') || who?.type === 'Bot';
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
  if (isUserOwner(payload, actor)) return { kind: 'allowed', actor };
  return { kind: 'ask', actor };
}

/** The refusal's one notice. */
export function refusal(actor: string, rule: string): string {
  return `Skipped: ${label(actor)} may not start a docs job here: ${rule}. People with write access to the repository may; allowedActors can name others.`;
}

/**
 * A `workflow_run` carries the secrets of this repository whatever started the run it follows:
 * a fork's pull request, or a comment, is then caused by someone without write access.
 */
function anyoneCanCause(event: RunnerEvent): boolean {
  const { name, payload } = event;
  if (OPEN_EVENTS.has(name)) return true;
  if (name === 'pull_request') return pullRequestFork(payload) !== undefined;
  if (name !== 'workflow_run') return false;
  const followed = payload.workflow_run;
  const head = text(followed?.head_repository?.full_name);
  const self = text(payload.repository?.full_name);
  if (!head || !self || head.toLowerCase() !== self.toLowerCase()) return true;
  const cause = text(followed?.event) ?? '';
  // A run that followed another `workflow_run` cannot tell what started the first: asked.
  return OPEN_EVENTS.has(cause) || cause === 'workflow_run';
}

/** Who caused the event: on `workflow_run`, who started (or re-ran) the run it follows. */
function actorOf(event: RunnerEvent): Account | null | undefined {
  const { payload } = event;
  if (event.name === 'workflow_run') {
    const followed = payload.workflow_run;
    for (const account of [followed?.triggering_actor, followed?.actor]) {
      if (text(account?.login)) return account;
    }
  }
  return payload.sender;
}

/** The actor owns the repository, and the repository is a user's (an organisation's owner is not a person). */
function isUserOwner(payload: Payload, actor: string): boolean {
  const owner = payload.repository?.owner;
  const login = text(owner?.login);
  return text(owner?.type) === 'User' && login !== undefined && login.toLowerCase() === actor.toLowerCase();
}
