import type { Actor, EventKind, RunEvent } from '../core/event.js';
import type { Access } from '../core/ports.js';
import { DOCS_PR_LABEL } from '../core/pull-request.js';
import { label } from '../core/untrusted.js';

/**
 * The collaborator-permission API's `permission` values that mean write access. `permission` is
 * the base role GitHub folds every role into — `maintain` and custom roles based on write read
 * `write` — while `role_name` carries a custom role's own name, so only `permission` is compared.
 */
const WRITE_PERMISSIONS = new Set(['admin', 'write']);

/** An actor's access to the repository, as GitHub's collaborator-permission API tells it. */
export type { Access };

export function hasWriteAccess(access: Access): boolean {
  return WRITE_PERMISSIONS.has(access.permission);
}

/**
 * Events that anyone who can see the repository can cause: on them, a job starts or goes on only
 * for someone with write access, or named in `allowedActors`. Events that need write access to
 * cause (a push, a schedule, a run by hand, a release, …) are not checked.
 */
function isOpen(event: { kind: EventKind; target?: boolean }): boolean {
  switch (event.kind) {
    case 'comment':
    case 'review':
    case 'issue':
    case 'discussion':
      return true;
    case 'pull-request':
      return event.target === true;
    default:
      return false;
  }
}

/** Whether the gate may have to look at this event's payload (and ask GitHub who caused it). */
export function mayBeOpen(event: RunEvent): boolean {
  return isOpen(event) || event.kind === 'pull-request' || event.kind === 'workflow-run';
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
  event: RunEvent,
  allowedActors: string[],
  fallbackActor = '',
  /** A label request: applying a label needs only triage, so the labeller is always checked. */
  labelled = false,
): Gate {
  // A bot's pull request (the docs service's own docs PR in a monorepo, a dependency bot's) is
  // no change of someone's to document, whoever pushes to it; a label someone applies still asks.
  const opener = event.kind === 'pull-request' && !labelled ? event.pull?.opener : undefined;
  if (opener?.login && isBot(opener) && !names(allowedActors, opener.login)) {
    return {
      kind: 'refused',
      actor: opener.login,
      rule: 'a pull request a bot opened starts no job unless allowedActors names the bot',
    };
  }
  if (!labelled && !anyoneCanCause(event)) return { kind: 'open' };
  return gateActor(actorOf(event), event, allowedActors, fallbackActor);
}

/**
 * A thread that is no change of someone's to document: a pull request that carries the label a
 * thread's run put on its docs PR (whoever asks), or one a bot opened that `allowedActors` does
 * not name, unless someone `asked` (a push's run, where the gate above saw no opener). Its notice
 * and status, or `undefined`.
 */
export function notAThread(
  opened: { docsLabel: boolean; by?: Actor } | undefined,
  allowedActors: string[],
  asked: boolean,
): { notice: string; status: string } | undefined {
  if (opened?.docsLabel) {
    return {
      notice: `Skipped: this pull request carries the label ${DOCS_PR_LABEL}, put on the docs pull request of a thread of this workflow: a docs pull request starts no docs job of its own. Ask on the pull request it documents.`,
      status: 'A docs PR starts no docs job',
    };
  }
  const by = opened?.by;
  // The docs service's own pull request (its app's): a request there is the service's to answer,
  // and a job for it would document the docs; one a thread's job opened names its thread (handed on).
  if (asked && by?.login && isBot(by) && isDocsService(by.login) && !names(allowedActors, by.login)) {
    return {
      notice: `Skipped: ${by.login} (the docs service's app) opened this pull request, and no thread of this workflow names it as its docs pull request: it starts no docs job. Ask on the pull request it documents, or mention the service there.`,
      status: "The docs service's PR starts no docs job",
    };
  }
  if (!asked && by?.login && isBot(by) && !names(allowedActors, by.login)) {
    return {
      notice: refusal(
        by.login,
        'a pull request a bot opened starts no job unless allowedActors names the bot',
      ),
      status: 'Opened by a bot: starts no docs job',
    };
  }
  return undefined;
}

/**
 * A pull request event of a pull request a bot opened that `allowedActors` does not name (the docs
 * service's own docs PR in a monorepo, a dependency bot's): it belongs to no thread.
 */
export function botsPullRequest(event: RunEvent, allowedActors: string[]): boolean {
  const by = event.kind === 'pull-request' ? event.pull?.opener : undefined;
  return Boolean(by?.login && isBot(by) && !names(allowedActors, by.login));
}

/** The docs service's GitHub App, as GitHub names its account (the `@mintlify` its pull requests answer). */
export function isDocsService(login: string): boolean {
  return /^mintlify(?:-[a-z0-9-]+)?\[bot\]$/i.test(login);
}

function isBot(who: Actor): boolean {
  return (who.login ?? '').toLowerCase().endsWith('[bot]') || who.type === 'Bot';
}

function names(allowedActors: string[], login: string): boolean {
  return allowedActors.some((a) => a.toLowerCase() === login.toLowerCase());
}

/** Who may ask, for one account (the event's actor, or a queued request's author). */
export function gateActor(
  who: Actor | undefined,
  event: RunEvent,
  allowedActors: string[],
  fallbackActor = '',
): Gate {
  const actor = who?.login ?? fallbackActor;
  const named = (login: string) => names(allowedActors, login);
  if (!actor) return { kind: 'refused', actor: '(unknown)', rule: 'the event names no sender' };
  if (isBot({ login: actor, ...(who?.type !== undefined ? { type: who.type } : {}) })) {
    return named(actor)
      ? { kind: 'allowed', actor }
      : {
          kind: 'refused',
          actor,
          rule: 'a bot starts a job only when allowedActors names it',
        };
  }
  if (named(actor) || allowedActors.includes('*')) return { kind: 'allowed', actor };
  if (isUserOwner(event, actor)) return { kind: 'allowed', actor };
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
function anyoneCanCause(event: RunEvent): boolean {
  if (isOpen(event)) return true;
  if (event.kind === 'pull-request') return event.pull?.fork !== undefined;
  if (event.kind !== 'workflow-run') return false;
  const head = event.run.headRepository;
  const self = event.repository?.fullName;
  if (!head || !self || head.toLowerCase() !== self.toLowerCase()) return true;
  const { cause } = event.run;
  // A run that followed another `workflow_run` cannot tell what started the first: asked.
  return isOpen(cause) || cause.kind === 'workflow-run';
}

/** Who caused the event: on `workflow_run`, who started (or re-ran) the run it follows. */
function actorOf(event: RunEvent): Actor | undefined {
  if (event.kind === 'workflow-run') {
    for (const account of [event.run.triggeringActor, event.run.actor]) {
      if (account?.login) return account;
    }
  }
  return event.sender;
}

/** The actor owns the repository, and the repository is a user's (an organisation's owner is not a person). */
function isUserOwner(event: RunEvent, actor: string): boolean {
  const owner = event.repository?.owner;
  const login = owner?.login;
  return owner?.type === 'User' && login !== undefined && login.toLowerCase() === actor.toLowerCase();
}
