import type { RunEvent } from '../core/event.js';
import type { Memory, Owed } from '../core/ports.js';
import { gate, hasWriteAccess, refusal, type Access } from './gate.js';
import type { Inputs } from './inputs.js';
import { label } from '../core/untrusted.js';
import type { Request, RequestComment } from './trigger.js';

/** A step that does nothing: its one notice, and what it says on the thread instead of a job. */
export interface Skip {
  kind: 'skip';
  /** The step's one notice. */
  notice: string;
  /** Said on the thread instead of a job: a bare phrase gets told what a request looks like. */
  answer?: string;
  /**
   * A run on a thread held back: the words of the success status the report leaves (so a required
   * check passes), the thread's job it names (a branch's next push still finds it), and what
   * earlier runs left (the branch's count). Decide writes nothing; the report writes this.
   */
  held?: { status: string; job?: string; memory: Memory };
  /**
   * What the thread is owed while its job works (`wait: false`), kept in its record with the
   * answer, so that the lane's run that sees the job's end sends it: a `/docs` request (its
   * comment's id), or the pull request's merge.
   */
  owe?: Owed;
  /**
   * A writer's `/docs` on a thread's docs pull request: handed to that thread's lane (the number
   * its note names), which sends it to the job that opened the docs PR. The answer is said only
   * when the hand-off fails.
   */
  handOff?: { thread: number; answer: string };
  /**
   * `draft: true` on the code pull request's close that sends nothing: the thread's job's docs PR
   * (its link, as the service gave it), made ready or closed as the code pull request went.
   */
  docsDraft?: string;
}

/** Whether the step acts on this event at all, decided before anything is sent anywhere. */
export type Admission =
  | Skip
  | {
      kind: 'go';
      /** The prompt to send: the standing prompt, then the request (if any). */
      prompt?: string;
      /** The comment that asked, when a `/docs` request started the run. */
      request?: RequestComment;
    };

/** The actor's access to the repository, asked of GitHub; `undefined` when GitHub could not tell. */
export type AccessOf = (actor: string) => Promise<Access | undefined>;

/**
 * A `/docs` request, if the event is one; then who asked, if anyone may cause the event; then
 * the prompt. A comment that is not a request costs no request at all, not even to GitHub; an
 * actor on an event anyone can cause costs one look-up of their access.
 */
export async function admit(
  inputs: Inputs,
  event: RunEvent,
  request: Request,
  accessOf: AccessOf,
  fallbackActor = '',
): Promise<Admission> {
  if (request.kind === 'skip') return { kind: 'skip', notice: `Skipped: ${request.why}.` };

  const decided = gate(event, inputs.allowedActors, fallbackActor, request.kind === 'label');
  if (decided.kind === 'refused') return { kind: 'skip', notice: refusal(decided.actor, decided.rule) };
  if (decided.kind === 'ask') {
    const access = await accessOf(decided.actor);
    if (access === undefined || !hasWriteAccess(access)) {
      const rule =
        access === undefined
          ? 'GitHub could not tell whether they have write access'
          : `their role on the repository is ${label(access.role)}, and a job needs write access`;
      return { kind: 'skip', notice: refusal(decided.actor, rule) };
    }
  }

  if (request.kind === 'none' || request.kind === 'label') return { kind: 'go', prompt: inputs.prompt };
  if (!request.text && !inputs.prompt) {
    const phrase = inputs.trigger ?? '';
    return {
      kind: 'skip',
      notice: `Skipped: the comment holds ${label(phrase)} and no request, and there is no standing prompt.`,
      answer: `Nothing to do yet: write what the docs need after ${phrase}, on the same line or below it — for example \`${phrase} document the new --dry-run flag\`.`,
    };
  }
  const prompt = [inputs.prompt, request.text].filter(Boolean).join('\n\n');
  return { kind: 'go', prompt, request: request.comment };
}
