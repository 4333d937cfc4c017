// The thread's comments, read for the `/docs` requests queued on it: the newest pages, back to
// the first comment the thread's ledger has not settled, oldest first, with the comment that
// started the run (a review comment is not among an issue's comments). On a thread longer than
// that bound, the pages from the ledger's floor on are read too, so every request is reached,
// one bounded stretch a run. Read before anything is sent; a fault ends the step, as what the
// thread remembers does: sending without knowing what is queued could send a request twice.
import * as z from 'zod/mini';
import { ActionFailure } from '../service/errors.js';
import type { ThreadComment, ThreadComments } from '../core/ports.js';
import type { Comment } from './client.js';
import type { CommentsPage } from './comment-pages.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';

/** At most this many pages of 100 from the newest back (the first page among them). */
export const COMMENT_PAGES = 10;
/** And, on a longer thread, at most this many more: finding the floor's page, then on from it. */
const FLOOR_PAGES = 10;
/** What the listing may take, retries included. */
const LIST_BUDGET_MS = 60_000;

/** What a run read of the thread's comments (`readTo`: on a thread past the bounds, read up to it). */
interface Listed {
  comments: Comment[];
  complete: boolean;
  readTo?: number;
}

export async function threadComments(
  session: GitHubSession,
  cancellation: AbortSignal,
  above = 0,
): Promise<ThreadComments> {
  const { run } = session;
  const { owner, repo } = run.repo;
  const runsUrl = `${run.serverUrl}/${owner}/${repo}/actions/runs/`;
  const own = ownComment(run.payload.comment);
  let keptId: number | undefined;
  const listed = await session.beforeTheCreate(
    LIST_BUDGET_MS,
    cancellation,
    async (signal): Promise<Listed> => {
      const { thread } = await session.runThread(signal);
      if (!thread) return { comments: [], complete: true };
      // Found already when the note was read: a note of an earlier version counts from it.
      const kept = await session.keptComment(signal);
      keptId = 'comment' in kept ? await kept.comment.id(signal) : undefined;
      // The pages the kept comment's look-up read are not asked again.
      const pages = session.commentPages(thread);
      return readAbove((n) => session.retrying(() => pages.page(n, signal), signal), above);
    },
    (error) => {
      throw new ActionFailure(
        `${describeGitHubFault(error, {
          what: `list the comments of the thread on ${owner}/${repo}, for the requests queued on it`,
          token: 'githubToken',
          permission: 'issues: read and pull-requests: read',
          repo: `${owner}/${repo}`,
          fails: true,
        })} Nothing was sent, so no request is sent twice; re-run when GitHub answers.`,
      );
    },
  );
  const comments = asThreadComments(listed.comments);
  if (own && !comments.some((c) => c.id === own.id)) comments.push(own);
  return {
    comments: comments.sort((a, b) => a.id - b.id),
    complete: listed.complete,
    ...(listed.readTo !== undefined ? { readTo: listed.readTo } : {}),
    runsUrl,
    ...(keptId !== undefined ? { keptId } : {}),
  };
}

/**
 * The comments above `above` (the ledger's floor): page 1 says how many pages there are; then the
 * newest back, until a page starts at or below the floor. Past COMMENT_PAGES the floor's own page
 * is found (comment ids grow page after page) and the pages on from it are read, up to
 * FLOOR_PAGES in all: `readTo` is then the newest comment of that unbroken stretch, which the
 * ledger's floor may rise to, and the next run reads on from there.
 */
export async function readAbove(page: (n: number) => Promise<CommentsPage>, above: number): Promise<Listed> {
  const read = new Map<number, Comment[]>();
  const at = async (n: number) => {
    let comments = read.get(n);
    if (!comments) read.set(n, (comments = (await page(n)).comments));
    return comments;
  };
  const first = await page(1);
  read.set(1, first.comments);
  const startsAtFloor = (comments: Comment[]) => (comments[0]?.id ?? 0) <= above;
  // The lowest page read from the newest back; at 2 (or 1) the whole thread above the floor is read.
  let lowest = first.last + 1;
  for (let n = first.last; n >= 2 && read.size < COMMENT_PAGES; n--) {
    lowest = n;
    if (startsAtFloor(await at(n))) break;
  }
  const all = () => [...new Map([...read.values()].flat().map((c) => [c.id, c])).values()];
  if (lowest <= 2 || startsAtFloor(read.get(lowest) ?? [])) return { comments: all(), complete: true };
  // The floor's page: the last one that starts at or below it (page 1 when none does).
  const spent = read.size;
  const budget = () => read.size - spent < FLOOR_PAGES;
  let low = 1;
  let high = lowest - 1;
  while (low < high && budget()) {
    const middle = Math.ceil((low + high) / 2);
    if (startsAtFloor(await at(middle))) low = middle;
    else high = middle - 1;
  }
  // Not found within the bound: nothing past the floor is known to be read in one stretch.
  if (low < high) return { comments: all(), complete: false };
  let upTo = low;
  while (upTo + 1 < lowest && (read.has(upTo + 1) || budget())) {
    await at(upTo + 1);
    upTo++;
  }
  if (upTo + 1 >= lowest) return { comments: all(), complete: true };
  const readTo = Math.max(above, ...(read.get(upTo) ?? []).map((c) => c.id));
  return { comments: all(), complete: false, readTo };
}

/** Issue comments as requests are read from them: those of an account GitHub still names. */
export function asThreadComments(listed: readonly Comment[]): ThreadComment[] {
  return listed.flatMap((c): ThreadComment[] =>
    c.login
      ? [{ id: c.id, body: c.body, author: c.login, bot: c.type === 'Bot', url: c.url, review: false }]
      : [],
  );
}

const payloadComment = z.object({
  id: z.number(),
  body: z.nullish(z.string()),
  html_url: z.string(),
  user: z.object({ login: z.string(), type: z.optional(z.string()) }),
  pull_request_review_id: z.optional(z.unknown()),
});

/** The comment that started the run, from its payload; `undefined` when it lacks what a request needs. */
function ownComment(raw: unknown): ThreadComment | undefined {
  const parsed = payloadComment.safeParse(raw);
  if (!parsed.success) return undefined;
  const c = parsed.data;
  return {
    id: c.id,
    body: c.body ?? '',
    author: c.user.login,
    bot: c.user.type === 'Bot',
    url: c.html_url,
    review: c.pull_request_review_id !== undefined,
  };
}
