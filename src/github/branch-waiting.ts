// A branch pushed to directly keeps its thread's job in this step's commit statuses, not in a
// comment: a run with `wait: false` leaves its status `pending` ("Goes on in the service"). A
// report run finds those on the default branch's newest commits — one request for the commits, one
// a commit for its statuses — and, once the job has ended, gives each the last word in its own
// context, and routes the docs pull request as the report run's own inputs ask.
import type { BranchWaiting } from '../core/ports.js';
import type { WaitingNews } from '../core/ports.js';
import { writeOnDocs } from './docs-pr.js';
import { faultOf } from './errors.js';
import type { GitHubSession } from './session.js';
import { JOB_WORDS, readStatusNote } from './status.js';
import { endStatus } from './waiting-end.js';

/** How many of the default branch's newest commits a report run reads the statuses of. */
export const BRANCH_SWEEP = 10;

/**
 * The jobs left at work on the default branch: for each, the commits whose newest status of this
 * action's identity, in some context, is still `pending` without waiting. Faults throw.
 */
export async function findBranchWaiting(
  session: GitHubSession,
  signal: AbortSignal,
): Promise<{ head?: string; jobs: BranchWaiting[] }> {
  const { owner, repo } = session.run.repo;
  const api = session.forRepo();
  const commits = await session
    .retrying(() => api.listCommits({ owner, repo, per_page: BRANCH_SWEEP }, signal), signal)
    // An empty repository (409) has no branch to look at.
    .catch((error: unknown) => {
      if (faultOf(error).status === 409) return [];
      throw error;
    });
  const head = commits[0];
  if (head === undefined) return { jobs: [] };
  const login = await session.ownLogin(signal);
  const jobs = new Map<string, BranchWaiting>();
  for (const sha of commits) {
    const seen = new Set<string>();
    // The newest 100 statuses: a context's newest says how it stands.
    for await (const page of api.statuses({ owner, repo, ref: sha }, signal)) {
      for (const status of page) {
        if (status.creator !== login || seen.has(status.context)) continue;
        seen.add(status.context);
        if (status.state !== 'pending' || !status.description?.startsWith(`${JOB_WORDS.goesOn}:`)) continue;
        const note = session.trusted(readStatusNote(status.description), 'the commit status');
        if (!note?.job) continue;
        const at = Date.parse(status.createdAt ?? '');
        const entry = jobs.get(note.job) ?? { job: note.job, run: note.run, pending: [] };
        entry.pending.push({ sha, context: status.context, ...(Number.isNaN(at) ? {} : { at }) });
        jobs.set(note.job, entry);
      }
      break;
    }
  }
  return { head, jobs: [...jobs.values()] };
}

/** Each pending status's last word, then the docs pull request routed as this run's inputs ask. */
export async function writeBranchEnd(
  session: GitHubSession,
  found: BranchWaiting,
  end: WaitingNews,
  signal: AbortSignal,
): Promise<void> {
  for (const { sha, context } of found.pending)
    await endStatus(session, found.job, { run: found.run, status: { sha, context } }, end, signal);
  // A branch's thread is a thread: its docs PR here is marked as one, whatever this step says.
  if (end.kind === 'ended' && end.job.status === 'completed')
    await writeOnDocs(session, end.job, undefined, signal, { ...session.request, thread: true });
}
