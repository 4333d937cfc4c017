// The docs pull request names the thread whose job opened it: one comment of the action's own on
// it, written by the first run that reports the job with that docs PR (and again only when another
// job of the thread takes it over). Why a comment: a run on the docs PR's own events — a `/docs`
// there, its preview's deployment — then finds its thread in one read of the docs PR's first page
// of comments, however many threads the repository has, where a search of every thread's record
// would grow with them; and reviewers on the docs PR see where it comes from.
import { inert } from '../core/untrusted.js';
import type { PullRequestRef } from '../core/pull-request.js';
import type { GitHubApi } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { Thread } from './target.js';

/** The first line of the note: which thread's docs these are, and by which job. */
const NOTE_PREFIX = '<!-- agent-job-docs-of ';

/** The docs PR's note for `thread`'s job `jobId`: its hidden first line, then what a reviewer reads. */
export function docsNoteBody(thread: Thread, jobId: string, serverUrl: string): string {
  const { owner, repo, number } = thread;
  const where = `${owner}/${repo}#${number}`;
  // GitHub sends an issue's link on to the pull request when the number is one.
  const url = `${serverUrl}/${owner}/${repo}/issues/${number}`;
  return [
    `${NOTE_PREFIX}${where} job ${encodeURIComponent(jobId)} -->`,
    `📄 The docs for <a href="${url}">${where}</a>, written by agent job ${inert(jobId)}.`,
    '',
  ].join('\n');
}

/**
 * The docs PR `pr` names `thread` and its job: the note posted where it has none on its first
 * page of comments, updated where it names another job. A fault is one warning that says which
 * token and permission it needs; nothing else depends on it.
 */
export async function nameThreadOnDocs(
  api: GitHubApi,
  pr: PullRequestRef,
  thread: Thread,
  jobId: string,
  serverUrl: string,
  log: { say: (line: string) => void; warn: (line: string) => void },
  signal: AbortSignal,
): Promise<void> {
  const { owner, repo, number } = pr;
  const body = docsNoteBody(thread, jobId, serverUrl);
  try {
    const { comments } = await api.commentsPage({ owner, repo, issue_number: number, page: 1 }, signal);
    const mine = comments.find((c) => c.body.startsWith(NOTE_PREFIX));
    if (mine?.body === body) return;
    if (mine) await api.updateComment({ owner, repo, comment_id: mine.id, body }, signal);
    else await api.createComment({ owner, repo, issue_number: number, body }, signal);
    log.say(
      `${mine ? 'Updated' : 'Posted'} the note on ${owner}/${repo}#${number} that names its thread, ${thread.owner}/${thread.repo}#${thread.number}.`,
    );
  } catch (error) {
    log.warn(
      `${describeGitHubFault(error, {
        what: `name the thread on the docs pull request ${owner}/${repo}#${number}`,
        token: 'docsToken',
        permission: 'pull-requests: write (or issues: write)',
        repo: `${owner}/${repo}`,
      })} The docs pull request does not say which thread it is for.`,
    );
  }
}
