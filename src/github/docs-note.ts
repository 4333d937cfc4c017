// The docs pull request names the thread whose job opened it: one comment of the action's own on
// it, written by the first run that reports the job with that docs PR (and again only when another
// job of the thread takes it over). Why a comment: a run on the docs PR's own events — a `/docs`
// there, its preview's deployment — then finds its thread in one read of the docs PR's first page
// of comments, however many threads the repository has, where a search of every thread's record
// would grow with them; and reviewers on the docs PR see where it comes from.
import { isJobId } from '../core/job.js';
import { inert } from '../core/untrusted.js';
import type { PullRequestRef } from '../core/pull-request.js';
import type { GitHubApi } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';
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
 * page of comments, updated where it names another job. Only a note the writing token's identity
 * (`login`, asked only when a note is there) wrote is the action's own. A fault is one warning
 * that says which token and permission it needs; nothing else depends on it.
 */
export async function nameThreadOnDocs(
  api: GitHubApi,
  pr: PullRequestRef,
  thread: Thread,
  jobId: string,
  serverUrl: string,
  log: {
    say: (line: string) => void;
    warn: (line: string) => void;
    login: (signal: AbortSignal) => Promise<string>;
  },
  signal: AbortSignal,
): Promise<void> {
  const { owner, repo, number } = pr;
  const body = docsNoteBody(thread, jobId, serverUrl);
  try {
    const { comments } = await api.commentsPage({ owner, repo, issue_number: number, page: 1 }, signal);
    const notes = comments.filter((c) => c.body.startsWith(NOTE_PREFIX));
    const login = notes.length > 0 ? await log.login(signal) : undefined;
    const mine = notes.find((c) => c.login === login);
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

/**
 * The thread (its number, in `repo`) a docs PR's note names, read back as input: only a note of
 * this action's identity (`login`), naming a pull request or issue of the run's own repository
 * with a number GitHub could give and a job id the action could send; `undefined` otherwise.
 */
export function namedThread(
  comments: readonly { body: string; login?: string }[],
  login: string,
  repo: { owner: string; repo: string },
): number | undefined {
  return namingNote(comments, login, repo)?.number;
}

/** `namedThread`, with the note's own comment (its `id`, where the list gives one). */
export function namingNote<C extends { body: string; login?: string }>(
  comments: readonly C[],
  login: string,
  repo: { owner: string; repo: string },
): { number: number; job: string; note: C } | undefined {
  for (const comment of comments) {
    if (comment.login !== login || !comment.body.startsWith(NOTE_PREFIX)) continue;
    const found =
      /^<!-- agent-job-docs-of ([A-Za-z0-9._-]+)\/([A-Za-z0-9._-]+)#([1-9]\d{0,9}) job (\S+) -->/.exec(
        comment.body,
      );
    if (!found) continue;
    const [, owner = '', name = '', number = '', job = ''] = found;
    const same =
      owner.toLowerCase() === repo.owner.toLowerCase() && name.toLowerCase() === repo.repo.toLowerCase();
    let id: string;
    try {
      id = decodeURIComponent(job);
    } catch {
      continue;
    }
    if (same && isJobId(id) && Number(number) <= MAX_NUMBER)
      return { number: Number(number), job: id, note: comment };
  }
  return undefined;
}

/** The largest pull request or issue number a note may name (GitHub's are far below). */
const MAX_NUMBER = 2 ** 31 - 1;

/**
 * The thread the run's own pull request names as a docs PR of this action's (its note, on its
 * first page of comments); `undefined` where it names none, or the note cannot be read.
 */
export async function threadOfDocsPull(
  session: GitHubSession,
  signal: AbortSignal,
): Promise<number | undefined> {
  const { thread } = await session.runThread(signal);
  if (!thread?.pull) return undefined;
  // The identity that writes the note there (the run's own pull request: this GitHub).
  const login = await session.docsLogin(session.api(session.request.docsToken), true, signal);
  const { comments } = await session.retrying(() => session.commentPages(thread).page(1, signal), signal);
  return namedThread(comments, login, session.run.repo);
}
