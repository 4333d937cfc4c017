// `/docs` on a thread's docs pull request: a run on the docs PR (its comment, in a monorepo; a
// dispatch the docs repository's workflow forwards) finds the thread its note names, and hands the
// request to that thread's lane; the lane's run reads the requests there, judges each author on
// the docs PR's repository, and answers there once they are sent. The docs PR is reached with
// `docsToken` (the workflow's own token where it is in this repository and none is given), and
// only its note of the writing token's own identity names a thread.
import type { Access } from '../core/ports.js';
import type { DocsAsks } from '../core/sweep-ports.js';
import { docsPullRequest, pullKey, pullPage, type PullRequestRef } from '../core/pull-request.js';
import type { Comment, GitHubApi } from './client.js';
import { namingNote } from './docs-note.js';
import { describeGitHubFault } from './errors.js';
import { asThreadComments, COMMENT_PAGES } from './requests.js';
import type { GitHubSession } from './session.js';

/** The docs PR at `link` as this run reaches it, with the identity whose note is the action's own; or why not. */
type Reached =
  | { pr: PullRequestRef; api: GitHubApi; where: string; login: (signal: AbortSignal) => Promise<string> }
  | { why: string };

function reach(session: GitHubSession, link: string): Reached {
  const found = session.docsReach(link);
  if ('none' in found) {
    const servers = session.run.serverUrl;
    return { why: found.why ?? `not a pull request on ${servers}` };
  }
  const { pr, api, home } = found;
  return {
    pr,
    api,
    where: `${pr.owner}/${pr.repo}#${pr.number}`,
    login: (signal) => session.docsLogin(api, home, signal),
  };
}

/** The docs PR's comments: its first page, then the newest back, at most COMMENT_PAGES pages; whether all were read. */
async function readComments(
  session: GitHubSession,
  { pr, api }: { pr: PullRequestRef; api: GitHubApi },
  signal: AbortSignal,
  onlyFirst = false,
): Promise<{ comments: Comment[]; complete: boolean }> {
  const page = (n: number) =>
    session.retrying(
      () => api.commentsPage({ owner: pr.owner, repo: pr.repo, issue_number: pr.number, page: n }, signal),
      signal,
    );
  const first = await page(1);
  const comments = [...first.comments];
  if (onlyFirst) return { comments, complete: first.last <= 1 };
  let pages = 1;
  for (let n = first.last; n >= 2; n--) {
    if (pages >= COMMENT_PAGES) return { comments, complete: false };
    comments.push(...(await page(n)).comments);
    pages++;
  }
  return { comments, complete: true };
}

/**
 * The thread the docs PR at `link` names (its number, in this repository), as its note of this
 * action's own says, from its first page of comments; `undefined` where none does. Faults throw.
 */
export async function docsThread(
  session: GitHubSession,
  link: string,
  signal: AbortSignal,
): Promise<{ number?: number; why?: string }> {
  const reached = reach(session, link);
  if ('why' in reached) return { why: `the docs pull request is ${reached.why}` };
  const { comments } = await readComments(session, reached, signal, true);
  const login = await reached.login(signal);
  const named = namingNote(comments, login, session.run.repo);
  return named
    ? { number: named.number }
    : { why: `${reached.where} names no thread of ${session.run.repo.owner}/${session.run.repo.repo}` };
}

/**
 * The requests on the docs PR at `link`, when its note of this action's own names thread
 * `number`; `undefined`, with a warning that says why, otherwise (nothing is sent from it).
 */
export async function docsAsks(
  session: GitHubSession,
  link: string,
  number: number,
  signal: AbortSignal,
): Promise<DocsAsks | undefined> {
  const reached = reach(session, link);
  const nothing = 'nothing asked there is sent';
  if ('why' in reached) {
    session.warn(
      `Could not read the requests on ${link}: the docs pull request is ${reached.why}; ${nothing}.`,
    );
    return undefined;
  }
  const { pr, where } = reached;
  try {
    const { comments, complete } = await readComments(session, reached, signal);
    const login = await reached.login(signal);
    const named = namingNote(comments, login, session.run.repo);
    if (named?.number !== number) {
      session.warn(
        `${where} is not #${number}'s docs pull request: no note of this action's own on it names that thread; ${nothing}.`,
      );
      return undefined;
    }
    return {
      link,
      key: pullKey(pr),
      comments: asThreadComments(comments).sort((a, b) => a.id - b.id),
      complete,
      noteId: named.note.id,
      job: named.job,
    };
  } catch (error) {
    if (signal.aborted) throw error;
    session.warn(
      `${describeGitHubFault(error, {
        what: `read the comments of the docs pull request ${where}`,
        token: 'docsToken',
        permission: 'pull-requests: read (or issues: read)',
        repo: `${pr.owner}/${pr.repo}`,
      })} What was asked there stays there, for a later run of the thread.`,
    );
    return undefined;
  }
}

/** `actor`'s access to the docs PR's repository, where a request there is judged; `undefined` (a warning) when GitHub does not say. */
export async function accessOn(
  session: GitHubSession,
  link: string,
  actor: string,
  signal: AbortSignal,
): Promise<Access | undefined> {
  const reached = reach(session, link);
  if ('why' in reached) return undefined;
  const { pr } = reached;
  const repo = `${pr.owner}/${pr.repo}`;
  try {
    return await session.retrying(
      () => reached.api.collaboratorAccess({ owner: pr.owner, repo: pr.repo, username: actor }, signal),
      signal,
    );
  } catch (error) {
    if (signal.aborted) throw error;
    session.warn(
      describeGitHubFault(error, {
        what: `read the role of ${actor} on ${repo}`,
        token: 'docsToken',
        permission: 'read access (metadata)',
        repo,
      }),
    );
    return undefined;
  }
}

/**
 * On the docs PR at `link`: the 👀 on each request `ids` (sent), and `answer` as one comment.
 * Faults are one warning; nothing else depends on them.
 */
export async function answerOnDocs(
  session: GitHubSession,
  link: string,
  ids: number[],
  answer: string,
  signal: AbortSignal,
): Promise<void> {
  const reached = reach(session, link);
  if ('why' in reached) return;
  const { pr, api, where } = reached;
  try {
    for (const id of ids)
      await api.react(
        { owner: pr.owner, repo: pr.repo, comment_id: id, review: false, content: 'eyes' },
        signal,
      );
    await api.createComment(
      { owner: pr.owner, repo: pr.repo, issue_number: pr.number, body: answer },
      signal,
    );
    session.say(
      `Answered on ${where}${ids.length > 0 ? `, and reacted 👀 to ${ids.length} request${ids.length === 1 ? '' : 's'} there` : ''}.`,
    );
  } catch (error) {
    session.warn(
      describeGitHubFault(error, {
        what: `answer on the docs pull request ${where}`,
        token: 'docsToken',
        permission: 'pull-requests: write (or issues: write)',
        repo: `${pr.owner}/${pr.repo}`,
      }),
    );
  }
}

/** The docs PR's page on this GitHub, for a run on it: what a dispatch names it by. */
export function docsPageOf(session: GitHubSession, pr: PullRequestRef): string | undefined {
  const link = pullPage(session.run.serverUrl, pr);
  return docsPullRequest(link, session.run.serverUrl) ? link : undefined;
}
