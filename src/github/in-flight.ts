// A thread whose job is at work carries WORKING_LABEL while no run has reported the job's end and
// either the job may open its docs pull request in the run's own repository (a monorepo, where the
// workflow runs on that docs PR's events too) or no run waits for it (`wait: false`). The label is
// the repository's index of those threads, read in one request: by a run on a pull request that is
// no thread yet (is it one's docs PR, before the report labels it DOCS_PR_LABEL?), and by a report
// run, which writes the end of each waiting job.
import type { AgentJob } from '../core/job.js';
import { isTerminal } from '../core/job.js';
import type { Outcome, ThreadNote } from '../core/ports.js';
import { WORKING_LABEL } from '../core/pull-request.js';
import { KeptComment, MARKER_PREFIX, MAX_PAGES } from './comment.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { describeThrown } from '../core/log.js';
import { readNote } from './note.js';
import type { Comment } from './api.js';
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
 * the run's own (execute, once the service confirmed the job) or when the run ends without waiting
 * for it (the report). A fault is a warning.
 */
export async function markAtWork(
  session: GitHubSession,
  job: AgentJob | undefined,
  signal: AbortSignal,
): Promise<void> {
  const { request } = session;
  if (!request.thread || !job || isTerminal(job.status)) return;
  if (!docsHere(session, job) && request.wait) return;
  const thread = await ownThread(session, signal);
  if (!thread) return;
  const { owner, repo, number } = thread;
  try {
    await session.forRepo().addLabels({ owner, repo, issue_number: number, labels: [WORKING_LABEL] }, signal);
    session.say(`Labelled ${owner}/${repo}#${number} ${WORKING_LABEL} while its job works.`);
  } catch (error) {
    session.warn(
      `${describeGitHubFault(error, {
        what: `label ${owner}/${repo}#${number} ${WORKING_LABEL} while its job works`,
        token: 'githubToken',
        permission: 'pull-requests: write (issues: write on an issue)',
        repo: `${owner}/${repo}`,
      })} ${request.wait ? 'A docs pull request opened here before the job ends is told from its own label only.' : 'Report runs do not find this thread: its next run reports the job.'}`,
    );
  }
}

/**
 * Once the job has ended and this run wrote its end (its docs PR labelled by then): the label
 * comes off the thread, where it may be (a docs repository here, a thread that was waiting, or a
 * run that did not wait). One the thread no longer carries is no fault; another is a warning.
 */
export async function unmarkAtWork(
  session: GitHubSession,
  outcome: Outcome,
  signal: AbortSignal,
): Promise<void> {
  const { request } = session;
  const { job } = outcome;
  if (!request.thread || !job || !isTerminal(job.status)) return;
  const waited = outcome.memory.note?.waiting !== undefined;
  if (!docsHere(session, job) && !waited && request.wait) return;
  // A record still owed (a send that failed, or was never made) keeps the label: report runs find
  // the thread, and its lane sends what is owed.
  if (waited && (outcome.failure !== undefined || !outcome.confirmed)) return;
  await takeOff(session, signal);
}

/** The label off the run's thread: one it no longer carries is no fault; another is a warning. */
export async function takeOff(session: GitHubSession, signal: AbortSignal): Promise<void> {
  const thread = await ownThread(session, signal);
  if (!thread) return;
  const { owner, repo, number } = thread;
  // The label is the thread's, not one step's: a record of another step (another project's)
  // that still waits keeps it, or no report run would find that job. Unread, it stays too.
  const others = await othersWait(session, thread, signal).catch((error: unknown) => {
    session.warn(`Left the label ${WORKING_LABEL} on ${owner}/${repo}#${number}: ${describeThrown(error)}.`);
    return true;
  });
  if (others) {
    session.say(
      `Left the label ${WORKING_LABEL} on ${owner}/${repo}#${number}: another step's job there still waits.`,
    );
    return;
  }
  try {
    await session.forRepo().removeLabel({ owner, repo, issue_number: number, name: WORKING_LABEL }, signal);
    session.say(`Took the label ${WORKING_LABEL} off ${owner}/${repo}#${number}.`);
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

/** Whether a kept comment of another step of this action on the thread records a job still waiting. */
async function othersWait(session: GitHubSession, thread: Thread, signal: AbortSignal): Promise<boolean> {
  const login = await session.ownLogin(signal);
  const { owner, repo, number } = thread;
  let pages = 0;
  for await (const comments of session.forRepo().comments({ owner, repo, issue_number: number }, signal)) {
    for (const c of comments) {
      if (c.login !== login || !c.body.startsWith(MARKER_PREFIX) || c.body.startsWith(session.marker))
        continue;
      if (session.trusted(readNote(c.body), 'a kept comment')?.waiting) return true;
    }
    if (++pages >= MAX_PAGES) break;
  }
  return false;
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
    const kept = new KeptComment(
      api,
      thread,
      session.marker,
      session.warn,
      (s) => session.ownLogin(s),
      undefined,
      session.commentPages(thread),
    );
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

/** A thread whose job a run left at work and no run has reported: its kept comment's marker and record. */
export interface WaitingThread {
  thread: Thread;
  marker: string;
  note: ThreadNote;
  /** The newest request queued while the job worked, as GitHub has it (the report run sends it, and the others with it). */
  lastQueued?: { id: number; body: string; login: string; bot: boolean };
}

/** The most threads one report run reads (GitHub's page), and the most comment pages it reads on each. */
const MAX_WAITING = 100;
const MAX_COMMENT_PAGES = 10;

/**
 * Every thread of the repository whose job no run has reported: the threads that carry
 * WORKING_LABEL (one request for up to a hundred, closed ones included — a merge's job may end
 * after its pull request closed), and on each the action's own comments whose record waits (any
 * step's: a report run may be a step of its own). Faults throw.
 */
export async function findWaiting(session: GitHubSession, signal: AbortSignal): Promise<WaitingThread[]> {
  const { owner, repo } = session.run.repo;
  const api = session.forRepo();
  const listed = await session.retrying(
    () => api.labelled({ owner, repo, label: WORKING_LABEL, max: MAX_WAITING, state: 'all' }, signal),
    signal,
  );
  const found: WaitingThread[] = [];
  for (const { number, pull } of listed)
    found.push(...(await waitingOn(session, { owner, repo, number, pull, fork: false }, signal)));
  return found;
}

/**
 * The records on one thread whose job no run has reported: the action's own comments (its
 * identity's, the marker at their start) whose note waits, each with the newest request queued
 * behind it as GitHub has it. Faults throw.
 */
export async function waitingOn(
  session: GitHubSession,
  thread: Thread,
  signal: AbortSignal,
): Promise<WaitingThread[]> {
  const { owner, repo, number } = thread;
  const api = session.forRepo();
  const login = await session.ownLogin(signal);
  const here: WaitingThread[] = [];
  const others = new Map<number, Comment>();
  let pages = 0;
  for await (const comments of api.comments({ owner, repo, issue_number: number }, signal)) {
    for (const comment of comments) {
      if (comment.login !== login || !comment.body.startsWith(MARKER_PREFIX)) {
        others.set(comment.id, comment);
        continue;
      }
      const note = session.trusted(readNote(comment.body), `the kept comment on #${number}`);
      const marker = comment.body.split('\n', 1)[0] ?? '';
      if (note?.waiting) here.push({ thread, marker, note });
    }
    if (++pages >= MAX_COMMENT_PAGES) break;
  }
  for (const waiting of here) {
    const last = waiting.note.waiting?.queued?.at(-1);
    const comment = last === undefined ? undefined : others.get(last);
    if (comment?.login)
      waiting.lastQueued = {
        id: comment.id,
        body: comment.body,
        login: comment.login,
        bot: comment.type === 'Bot',
      };
  }
  return here;
}
