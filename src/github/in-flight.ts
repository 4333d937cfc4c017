// A thread whose job works and may still open its docs pull request in the run's own repository (a
// monorepo, where the workflow runs on that docs PR's events too) carries WORKING_LABEL until a run
// reports the job's end. A run on a pull request that is no thread yet finds those threads in one
// request, and the core tells from their jobs whether this pull request is one's docs PR — in the
// moments between its opening and the report that labels it DOCS_PR_LABEL.
import type { AgentJob } from '../core/job.js';
import { isTerminal } from '../core/job.js';
import { WORKING_LABEL } from '../core/pull-request.js';
import { KeptComment } from './comment.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { readNote } from './note.js';
import type { GitHubSession } from './session.js';
import type { Thread } from './target.js';

/** The most threads at work a run reads the jobs of: the newest. */
export const MAX_AT_WORK = 10;

/** Whether the job's docs repository (its `source.repository`) is the run's own. */
export function docsHere(session: GitHubSession, job: AgentJob | undefined): boolean {
  const url = job?.source?.repository;
  if (!url) return false;
  const { serverUrl, repo } = session.run;
  const own = `${serverUrl}/${repo.owner}/${repo.repo}`.toLowerCase();
  return (
    url
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .toLowerCase() === own
  );
}

/**
 * While the job works: the run's thread carries WORKING_LABEL, when the job's docs repository is
 * the run's own. A fault is a warning: a docs PR opened meanwhile is then told only by its label.
 */
export async function markAtWork(session: GitHubSession, job: AgentJob | undefined, signal: AbortSignal) {
  if (!session.request.thread || !docsHere(session, job)) return;
  const thread = await ownThread(session, signal);
  if (!thread) return;
  const { owner, repo, number } = thread;
  try {
    await session.forRepo().addLabels({ owner, repo, issue_number: number, labels: [WORKING_LABEL] }, signal);
  } catch (error) {
    session.warn(
      `${describeGitHubFault(error, {
        what: `label ${owner}/${repo}#${number} ${WORKING_LABEL} while its job works`,
        token: 'githubToken',
        permission: 'pull-requests: write (issues: write on an issue)',
        repo: `${owner}/${repo}`,
      })} A docs pull request opened here before the job's end is told from its own label only.`,
    );
  }
}

/**
 * Once the job has ended (its docs PR, if any, labelled by then): the label comes off. One the
 * thread no longer carries is no fault; another is a warning.
 */
export async function unmarkAtWork(session: GitHubSession, job: AgentJob | undefined, signal: AbortSignal) {
  if (!session.request.thread || !job || !isTerminal(job.status) || !docsHere(session, job)) return;
  const thread = await ownThread(session, signal);
  if (!thread) return;
  const { owner, repo, number } = thread;
  try {
    await session.forRepo().removeLabel({ owner, repo, issue_number: number, name: WORKING_LABEL }, signal);
  } catch (error) {
    if (faultOf(error).notFound) return;
    session.warn(
      describeGitHubFault(error, {
        what: `remove the label ${WORKING_LABEL} from ${owner}/${repo}#${number}`,
        token: 'githubToken',
        permission: 'pull-requests: write (issues: write on an issue)',
        repo: `${owner}/${repo}`,
      }),
    );
  }
}

/**
 * The jobs of the repository's other threads at work (the newest MAX_AT_WORK that carry
 * WORKING_LABEL), as their kept comments' notes name them. Faults throw: the caller decides.
 */
export async function jobsAtWork(
  session: GitHubSession,
  own: Thread,
  signal: AbortSignal,
): Promise<string[]> {
  const { owner, repo } = own;
  const api = session.forRepo();
  const listed = await session.retrying(
    () => api.labelled({ owner, repo, label: WORKING_LABEL, max: MAX_AT_WORK }, signal),
    signal,
  );
  const jobs: string[] = [];
  for (const { number, pull } of listed) {
    if (number === own.number) continue;
    const thread: Thread = { owner, repo, number, pull, fork: false };
    const kept = new KeptComment(api, thread, session.marker, session.warn, (s) => session.ownLogin(s));
    const body = await session.retrying(() => kept.body(signal), signal);
    const job = session.trusted(body ? readNote(body) : undefined, `the kept comment on #${number}`)?.job;
    if (job && !jobs.includes(job)) jobs.push(job);
  }
  return jobs;
}

async function ownThread(session: GitHubSession, signal: AbortSignal): Promise<Thread | undefined> {
  try {
    return (await session.retrying(() => session.runThread(signal), signal)).thread;
  } catch {
    // Finding the thread failed: the comment's own writers say so.
    return undefined;
  }
}
