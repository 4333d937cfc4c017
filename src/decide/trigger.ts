import { type RunEvent } from '../core/event.js';
import { refWords } from '../core/ref-words.js';
import type { RequestComment } from '../core/ports.js';
import { quote } from '../core/untrusted.js';

/** What a comment event means for a step with a `trigger` phrase. */
export type Request =
  /** No phrase, or not a comment event: the step runs as it would without one. */
  | { kind: 'none' }
  /** Not a request: the step ends at once, with `why` in its one notice. */
  | { kind: 'skip'; why: string }
  /** A request: `text` is what follows the phrase (may be empty: a bare phrase). */
  | { kind: 'request'; text: string; comment: RequestComment }
  /** `triggerLabel` applied to a pull request or issue: a request with the standing prompt. */
  | { kind: 'label'; label: string };

/** The comment that asked, for the reaction that says it was taken. */
export type { RequestComment };

/**
 * Whether the comment that started the run asks for docs: a new comment whose text begins with
 * the phrase (leading white space ignored, any case), followed by a space, a line break or its
 * end. An edit or a deletion never is: an edit of an old request must not start a second job.
 */
export function readRequest(phrase: string | undefined, event: RunEvent, label?: string): Request {
  // Read first, before the GitHub side loads: a deleted ref has no commit to document or to put a
  // status on, and no pull request to follow.
  if (event.kind === 'push' && event.deleted) {
    return { kind: 'skip', why: `the push deleted ${refWords(event.ref)}, which leaves nothing to document` };
  }
  if (label && (event.kind === 'pull-request' || event.kind === 'issue')) {
    const asked = readLabel(label, event.action, event.label);
    if (asked) return asked;
  }
  // A discussion has no thread the action keeps: with a phrase set, its comments ask for nothing.
  if (phrase && event.kind === 'discussion' && event.comment) {
    return {
      kind: 'skip',
      why: `a discussion comment is never a request: ${quote(phrase, 60)} is read on issue and pull request comments`,
    };
  }
  if (!phrase || event.kind !== 'comment') return { kind: 'none' };
  const { action, comment } = event;
  if (action !== 'created') {
    return {
      kind: 'skip',
      why: `the comment was ${quote(action ?? 'changed', 40)}, and only a new comment is a request`,
    };
  }
  const rest = afterPhrase(comment?.body ?? '', phrase);
  if (rest === undefined)
    return { kind: 'skip', why: `the comment does not begin with ${quote(phrase, 60)}` };
  const id = comment?.id;
  if (id === undefined) return { kind: 'skip', why: 'the event names no comment' };
  return { kind: 'request', text: rest, comment: { id, review: event.review } };
}

/**
 * `labeled` with `triggerLabel` is a request; another label, or any `unlabeled`, is not (and costs
 * nothing); other actions (`opened`, `synchronize`, …) run as they would without a label.
 * GitHub's label names ignore case.
 */
function readLabel(
  label: string,
  action: string | undefined,
  applied: string | undefined,
): Request | undefined {
  if (action === 'unlabeled') {
    return { kind: 'skip', why: 'a label was removed, and only applying triggerLabel is a request' };
  }
  if (action !== 'labeled') return undefined;
  const name = applied ?? '';
  if (name.toLowerCase() === label.toLowerCase()) return { kind: 'label', label: name };
  return { kind: 'skip', why: `the label applied is ${quote(name, 60)}, not ${quote(label, 60)}` };
}

/** What follows the phrase at the start of `body` (trimmed; `''` when bare), or `undefined` when it does not start with it. */
export function afterPhrase(body: string, phrase: string): string | undefined {
  const start = body.trimStart();
  if (start.slice(0, phrase.length).toLowerCase() !== phrase.toLowerCase()) return undefined;
  const next = start.charAt(phrase.length);
  if (next !== '' && !/\s/.test(next)) return undefined;
  return start.slice(phrase.length).trim();
}
