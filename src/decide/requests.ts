// Queued `/docs` requests on a thread, pure: which comments are requests not yet delivered (the
// note's record: GitHub's comment ids grow, so a watermark tells them), whether an earlier run
// already carried the run's own, and the prompt that carries several at once.
import type { Carried, Delivery, ThreadComment, ThreadNote } from '../core/ports.js';
import { afterPhrase } from './trigger.js';
import { cell } from '../core/untrusted.js';

/** A `/docs` comment as a request: its comment's facts and what follows the phrase. */
export interface QueuedRequest extends ThreadComment {
  text: string;
}

export type Queue =
  /** An earlier run already delivered the run's own request: `run`, when the note still says which. */
  | { kind: 'carried'; run?: number }
  /**
   * The run sends its own request and those `waiting` (not delivered, not yet checked for who
   * may ask), oldest first; every request at or below `after` counts as delivered.
   */
  | { kind: 'open'; after: number; waiting: QueuedRequest[] };

/**
 * Where the thread stands for a request run: `own` (the comment that started it), the thread's
 * `comments`, the note's record. A note without a record was written before requests were
 * kept (and no note, a thread's first run): every request older than the run's own counts as
 * delivered, so none is sent twice. A record with no delivery yet queues every request since the
 * kept comment. A bare
 * phrase is a request only with a standing prompt (else its own run answers it). A review comment
 * is only its own run's request: only issue comments are gathered.
 */
export function readQueue(
  own: { id: number; review: boolean },
  comments: ThreadComment[],
  options: {
    phrase: string;
    standing: boolean;
    note: ThreadNote | undefined;
    runId: number;
    /** The kept comment's id: requests before it predate the thread's note. */
    keptId?: number;
  },
): Queue {
  const { phrase, standing, note, runId, keptId } = options;
  const deliveries = note?.delivered ?? [];
  // A review comment's id is not of the issue comments' series: it says nothing of their order.
  const unknown = own.review ? Number.MAX_SAFE_INTEGER : own.id - 1;
  const after =
    deliveries.length > 0
      ? Math.max(...deliveries.map((d) => d.upTo))
      : // Recorded, none delivered yet: every request since the thread's comment is queued.
        note?.delivered !== undefined && keptId !== undefined
        ? keptId
        : unknown;
  if (!own.review && own.id <= after) {
    const by = carrier(deliveries, own.id);
    // A re-run of the run that carried it goes on: it finds its own job and waits for it.
    if (by !== runId) return { kind: 'carried', ...(by !== undefined ? { run: by } : {}) };
  }
  const waiting = comments
    .filter((c) => c.id > after && c.id !== own.id && !c.review)
    .flatMap((c): QueuedRequest[] => {
      const text = afterPhrase(c.body, phrase);
      return text === undefined || (!text && !standing) ? [] : [{ ...c, text }];
    })
    .sort((a, b) => a.id - b.id);
  return { kind: 'open', after, waiting };
}

/** The run that delivered request `id`, when the note still keeps its delivery. */
function carrier(deliveries: Delivery[], id: number): number | undefined {
  return deliveries.find((d) => d.after < id && id <= d.upTo)?.run;
}

/**
 * What the run carries: its own request and the others allowed to ask, oldest first; the prompt
 * only when there are others (with its own alone, the prompt stays the standing prompt and the
 * request, as it always was).
 */
export function carry(
  own: QueuedRequest,
  others: QueuedRequest[],
  after: number,
  standing: string | undefined,
  leftFrom?: number,
): { carried: Carried; prompt?: string } {
  const requests = [own, ...others].sort((a, b) => a.id - b.id);
  // Requests left for the next send stay undelivered: the record stops below the first of them
  // (the run's own, above it, may then be sent again, never lost).
  const issueIds = requests
    .filter((r) => !r.review && (leftFrom === undefined || r.id < leftFrom))
    .map((r) => r.id);
  const carried: Carried = {
    ...(issueIds.length > 0 ? { delivery: { after, upTo: Math.max(...issueIds) } } : {}),
    requests: requests.map(({ id, author, url, review }) => ({ id, author, url, review })),
  };
  return others.length > 0 ? { carried, prompt: requestsPrompt(standing, requests) } : { carried };
}

/** The standing prompt, then each request with its author and link, oldest first. */
export function requestsPrompt(standing: string | undefined, requests: QueuedRequest[]): string {
  const total = requests.length;
  const each = requests.map(
    (r, i) =>
      `Request ${i + 1} of ${total}, by ${r.author}${r.url ? ` (${r.url})` : ''}:\n${shortened(r.text) || '(nothing after the phrase: the standing prompt above is the request)'}`,
  );
  return [standing, `${total} requests were made on this thread, oldest first:`, ...each]
    .filter(Boolean)
    .join('\n\n');
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
