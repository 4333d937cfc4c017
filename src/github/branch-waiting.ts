// A branch pushed to directly keeps its thread's job in this step's commit statuses, not in a
// comment: a run with `wait: false` leaves its status `pending` ("Goes on in the service") and
// records it as a git ref (branch-record.ts). A report run lists those records in one request —
// on any branch, however many commits or statuses came after — reads each record's commit's
// statuses for this step's own, and, once the job has ended, gives each pending status its last
// word in its own context, routes the docs pull request as the report run's own inputs ask, and
// deletes the records. Where no record is there to list (GitHub refused them, or an earlier version
// wrote none), it reads the default branch's newest commits as it did before: one request for the
// commits, one a commit for its statuses.
import type { BranchWaiting } from '../core/sweep-ports.js';
import type { WaitingNews } from '../core/ports.js';
import {
  BRANCH_SWEEP,
  dropRecords,
  listRecords,
  MAX_RECORDS,
  readRecord,
  type RecordRef,
} from './branch-record.js';
import { writeOnDocs } from './docs-pr.js';
import { faultOf } from './errors.js';
import type { GitHubSession } from './session.js';
import { pullPage } from '../core/pull-request.js';
import { pullOfRef, readStatusNote } from './status.js';
import { supersede } from './supersede.js';
import { endStatus } from './waiting-end.js';

/**
 * A branch's job as a report run found it, with the records (refs) behind it, which go once its
 * end is written. A job whose records all stand for statuses that no longer wait has no `pending`:
 * its records go once the job's end is known, and nothing else is written.
 */
interface RecordedWaiting extends BranchWaiting {
  records: RecordRef[];
}

/** The records behind a job the report run found (none for one the default branch's commits showed). */
function recordsOf(found: BranchWaiting): readonly RecordRef[] {
  return 'records' in found && Array.isArray(found.records) ? (found.records as RecordRef[]) : [];
}

/**
 * The branches' jobs left at work: for each, the commits whose newest status of this step is still
 * `pending` without waiting. `head` (the default branch's) only when its newest commits were read
 * instead of the records. Faults throw.
 */
export async function findBranchWaiting(
  session: GitHubSession,
  signal: AbortSignal,
): Promise<{ head?: string; jobs: BranchWaiting[] }> {
  const context = session.statusContext;
  const listed = await listRecords(session, context, signal);
  if (listed === undefined || listed.length === 0) return scanDefaultBranch(session, context, signal);
  if (listed.length > MAX_RECORDS)
    session.log.info(
      `${listed.length} jobs are recorded at work on branches: this run reads ${MAX_RECORDS} of them, a later run the rest.`,
    );
  const jobs = new Map<string, RecordedWaiting>();
  for (const ref of listed.slice(0, MAX_RECORDS)) {
    if (signal.aborted) break;
    const record = await readRecord(session, ref, context, signal);
    if (!record) {
      session.warn(
        `refs/${ref.name} names no status of this step on ${ref.sha.slice(0, 12)}: it is not this action's record, and is left as it is.`,
      );
      continue;
    }
    const entry = jobs.get(record.job) ?? { job: record.job, run: record.run, pending: [], records: [] };
    entry.records.push(ref);
    if (record.pending) {
      const { context: where, at, supersedes } = record.pending;
      // The run that left it: the newest pending status's.
      const newest = Math.max(-Infinity, ...entry.pending.map((p) => p.at ?? -Infinity));
      if ((at ?? -Infinity) >= newest) entry.run = record.run;
      entry.pending.push({
        sha: ref.sha,
        context: where,
        ...(at === undefined ? {} : { at }),
        ...(supersedes ? { supersedes } : {}),
      });
      if (record.pending.overdue) entry.overdue = true;
    }
    jobs.set(record.job, entry);
  }
  return { jobs: [...jobs.values()] };
}

/**
 * The jobs left at work on the default branch's newest commits (BRANCH_SWEEP), as this step's own
 * newest status on each says: what a report run reads where no record lists them.
 */
async function scanDefaultBranch(
  session: GitHubSession,
  context: string,
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
    // The newest 100 statuses: this step's newest says how it stands.
    for await (const page of api.statuses({ owner, repo, ref: sha }, signal)) {
      const status = page.find((s) => s.creator === login && s.context === context);
      if (status?.state !== 'pending' || !readStatusNote(status.description)?.goesOn) break;
      const note = session.trusted(readStatusNote(status.description), 'the commit status');
      if (!note?.job) break;
      const at = Date.parse(status.createdAt ?? '');
      const entry = jobs.get(note.job) ?? { job: note.job, run: note.run, pending: [] };
      const { supersedes } = note;
      entry.pending.push({
        sha,
        context,
        ...(Number.isNaN(at) ? {} : { at }),
        ...(supersedes ? { supersedes } : {}),
      });
      jobs.set(note.job, entry);
      break;
    }
  }
  return { head, jobs: [...jobs.values()] };
}

/**
 * Each pending status's last word, then the docs pull request routed as this run's inputs ask,
 * then the records behind the job deleted, each once GitHub shows its status no longer waits.
 */
export async function writeBranchEnd(
  session: GitHubSession,
  found: BranchWaiting,
  end: WaitingNews,
  signal: AbortSignal,
): Promise<void> {
  for (const { sha, context, supersedes } of found.pending)
    await endStatus(
      session,
      found.job,
      { run: found.run, status: { sha, context } },
      end,
      signal,
      supersedes,
    );
  // A branch's thread is a thread: its docs PR here is marked as one, whatever this step says. A
  // job none of whose statuses still waited had its end written by another run.
  if (found.pending.length > 0 && end.kind === 'ended' && end.job.status === 'completed')
    await writeOnDocs(session, end.job, undefined, signal, { ...session.request, thread: true }, false);
  // The docs pull request an earlier job of the branch left, which the statuses name: closed now
  // that this job has its own, as the run that left it at work would have.
  const refs = new Set(found.pending.flatMap(({ supersedes }) => (supersedes ? [supersedes] : [])));
  const waiting = [...refs].flatMap((ref) => {
    const pr = pullOfRef(ref);
    return pr ? [pullPage(session.run.serverUrl, pr)] : [];
  });
  if (end.kind === 'ended' && waiting.length > 0) {
    const outcome = { jobId: found.job, job: end.job, confirmed: true, timedOut: false, waitedMs: 0 };
    await supersede(session, { ...outcome, memory: {} }, signal, waiting);
  }
  await dropRecords(session, recordsOf(found), signal);
}
