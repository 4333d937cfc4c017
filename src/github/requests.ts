// The thread's comments, read for the `/docs` requests queued on it: the newest pages, back to
// the first comment the thread's ledger has not settled, oldest first, with the comment that
// started the run (a review comment is not among an issue's comments). Read before anything is
// sent; a fault ends the step, as what the thread remembers does: sending without knowing what is
// queued could send a request twice.
import * as z from 'zod/mini';
import { ActionFailure } from '../service/errors.js';
import type { ThreadComment } from '../core/ports.js';
import type { Comment } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';

/** At most this many pages of 100: the newest, back to what the ledger settled. */
export const COMMENT_PAGES = 10;
/** What the listing may take, retries included. */
const LIST_BUDGET_MS = 60_000;

export async function threadComments(
  session: GitHubSession,
  cancellation: AbortSignal,
  above = 0,
): Promise<{ comments: ThreadComment[]; complete: boolean; runsUrl: string; keptId?: number }> {
  const { run } = session;
  const { owner, repo } = run.repo;
  const runsUrl = `${run.serverUrl}/${owner}/${repo}/actions/runs/`;
  const own = ownComment(run.payload.comment);
  let keptId: number | undefined;
  let complete = true;
  const listed = await session.beforeTheCreate(
    LIST_BUDGET_MS,
    cancellation,
    async (signal): Promise<Comment[]> => {
      const { thread } = await session.runThread(signal);
      if (!thread) return [];
      // Found already when the note was read: a note of an earlier version counts from it.
      const kept = await session.keptComment(signal);
      keptId = 'comment' in kept ? await kept.comment.id(signal) : undefined;
      const page = (n: number) =>
        session.retrying(
          () => session.forRepo().commentsPage({ owner, repo, issue_number: thread.number, page: n }, signal),
          signal,
        );
      // Page 1 says how many there are; then the newest back, until a page starts at or below
      // what the ledger settled. Past the bound the pages between stay unread (never settled).
      const first = await page(1);
      const read: Comment[] = [...first.comments];
      let pages = 1;
      for (let n = first.last; n >= 2; n--) {
        if (pages >= COMMENT_PAGES) {
          complete = false;
          break;
        }
        const { comments } = await page(n);
        pages++;
        read.push(...comments);
        if ((comments[0]?.id ?? 0) <= above) break;
      }
      return read;
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
  const comments = asThreadComments(listed);
  if (own && !comments.some((c) => c.id === own.id)) comments.push(own);
  return {
    comments: comments.sort((a, b) => a.id - b.id),
    complete,
    runsUrl,
    ...(keptId !== undefined ? { keptId } : {}),
  };
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
