// Queued `/docs` requests on a thread, pure: which comments are requests the thread's ledger still
// owes, whether an earlier run already sent the run's own, and the prompt that carries several at
// once. Every request is told apart by its comment id: a request is settled only by the run whose
// accepted send carried it (or that told its author they may not ask), never by being older than
// another.
import { standing, type RequestLedger } from '../core/ledger.js';
import type { Carried, ThreadComment } from '../core/ports.js';
import { afterPhrase } from './trigger.js';
import { cell } from '../core/untrusted.js';

/** A `/docs` comment as a request: its comment's facts and what follows the phrase. */
export interface QueuedRequest extends ThreadComment {
  text: string;
}

export type Queue =
  /** An earlier run already sent the run's own request: `run`, when the ledger still says which. */
  | { kind: 'carried'; run?: number }
  /** The requests the ledger still owes besides the run's own, oldest first (authors not yet checked). */
  | { kind: 'open'; owed: QueuedRequest[] };

/**
 * Where the thread stands for a run: `own` (the comment that started it, if a request did), the
 * thread's `comments`, the ledger. A bare phrase is a request only with a standing prompt (else
 * its own run answers it). A review comment is only its own run's request: only issue comments
 * are gathered, since a review comment's id is of another series than the ledger's.
 */
export function readQueue(
  own: { id: number; review: boolean } | undefined,
  comments: ThreadComment[],
  options: { phrase: string; standing: boolean; ledger: RequestLedger; runId: number },
): Queue {
  const { phrase, ledger, runId } = options;
  if (own && !own.review) {
    const was = standing(ledger, own.id);
    // A re-run of the run that carried it goes on: it finds its own job and waits for it. A
    // request once refused is read afresh: its author passed this run's gate.
    if (was.settled && !was.refused && was.run !== runId)
      return { kind: 'carried', ...(was.run !== undefined ? { run: was.run } : {}) };
  }
  const owed = comments
    .filter((c) => !c.review && c.id !== own?.id && !standing(ledger, c.id).settled)
    .flatMap((c): QueuedRequest[] => {
      const text = afterPhrase(c.body, phrase);
      return text === undefined || (!text && !options.standing) ? [] : [{ ...c, text }];
    })
    .sort((a, b) => a.id - b.id);
  return { kind: 'open', owed };
}

/**
 * What the run carries: its own request (when a request started it) and the others allowed to
 * ask, oldest first; the prompt only when there are others (with its own alone, the prompt stays
 * the standing prompt and the request, as it always was). `refused` and `owed`: the requests
 * read that are settled as refused, and those that stay owed.
 */
export function carry(
  own: QueuedRequest | undefined,
  others: QueuedRequest[],
  read: { ledger: RequestLedger; refused: number[]; owed: number[]; readUpTo?: number },
  standingPrompt: string | undefined,
): { carried: Carried; prompt?: string } {
  const requests = [...(own ? [own] : []), ...others].sort((a, b) => a.id - b.id);
  const carried: Carried = {
    ledger: read.ledger,
    sent: requests.filter((r) => !r.review).map((r) => r.id),
    refused: read.refused,
    owed: read.owed,
    ...(read.readUpTo !== undefined ? { readUpTo: read.readUpTo } : {}),
    requests: requests.map(({ id, author, url, review }) => ({ id, author, url, review })),
  };
  return others.length > 0 ? { carried, prompt: requestsPrompt(standingPrompt, requests) } : { carried };
}

/** The standing prompt, then each request with its author and link, oldest first. */
export function requestsPrompt(
  standing: string | undefined,
  requests: QueuedRequest[],
  place = 'this thread',
): string {
  const total = requests.length;
  const each = requests.map(
    (r, i) =>
      `Request ${i + 1} of ${total}, by ${r.author}${r.url ? ` (${r.url})` : ''}:\n${shortened(r.text) || '(nothing after the phrase: the standing prompt above is the request)'}`,
  );
  const heading =
    total === 1
      ? `1 request was made on ${place}:`
      : `${total} requests were made on ${place}, oldest first:`;
  return [standing, heading, ...each].filter(Boolean).join('\n\n');
}

/** The most characters of one request carried with others: the rest is at its link. */
export const REQUEST_TEXT_MAX = 4000;

function shortened(text: string): string {
  const chars = [...text];
  if (chars.length <= REQUEST_TEXT_MAX) return text;
  return `${chars.slice(0, REQUEST_TEXT_MAX).join('')}… (cut: the whole request is at its link)`;
}

/** What a run whose request an earlier run delivered says on the thread. */
export function carriedAnswer(run: number | undefined, runsUrl: string): string {
  const by =
    run !== undefined
      ? `<a href="${cell(`${runsUrl}${run}`, 2000)}">run ${run}</a> sent it`
      : 'an earlier run sent it';
  return `This request was already delivered: ${by}, with the other requests queued on the thread. Nothing more was sent.`;
}

/** The skip's one notice. */
export function carriedNotice(run: number | undefined): string {
  return `Skipped: this request was already sent to the thread's job by ${run !== undefined ? `run ${run}` : 'an earlier run'}, with the other requests queued on the thread.`;
}
