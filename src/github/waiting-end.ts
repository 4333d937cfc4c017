// The end of a thread's job that no run waited for (`wait: false`), written by the first run that
// reads it: the kept comment with the result and the record cleared, the commit status the
// starting run left `pending` — on its commit and in its context, so a required check resolves —
// what that run asked of the docs PR (labels, reviewers, auto-merge), and the label off the thread.
// The record is read back from a comment others may edit: only what this step would have done
// itself is done (checkWaiting, docs/design.md §3.10).
import { formatDuration } from '../core/duration.js';
import { describeThrown } from '../core/log.js';
import type { ThreadNote, Waiting, WaitingNews } from '../core/ports.js';
import { isPullRequestUrl, label } from '../core/untrusted.js';
import { withEndDocsPr } from '../core/docs-record.js';
import { checkWaiting, clearWaiting, oweDocs, owes, refusedWarning, settleWaiting } from '../core/ledger.js';
import { writeOnDocs } from './docs-pr.js';
import { takeOff, type WaitingThread } from './in-flight.js';
import { readNote, withNote } from './note.js';
import type { GitHubSession } from './session.js';
import {
  CommitStatus,
  JOB_WORDS,
  readStatusNote,
  statusDescription,
  supersedingWord,
  type StatusState,
} from './status.js';
import { faultOf } from './errors.js';
import { supersede } from './supersede.js';
import { body, keptForWriting } from './writes.js';

/**
 * The waiting job's end (or its overdue mark) on the thread: the comment, with the record settled
 * (cleared, or kept while something is `owed` for the thread's lane to send, or marked overdue),
 * the pending status's word, the docs PR routed as the starting run asked, and the label off once
 * the record is gone.
 */
export async function writeWaitingEnd(
  session: GitHubSession,
  note: ThreadNote,
  end: WaitingNews,
  owed: boolean,
  signal: AbortSignal,
): Promise<boolean> {
  const read = note.waiting;
  if (!read) return false;
  // Checked before anything is written, and written back checked: what was refused is not asked
  // of a later run again. A status whose commit could not be read stays in a record kept (an
  // overdue mark): the job's real end tries it again.
  const { waiting, unread } = await soundRecord(session, note.job, read, signal);
  const kept = unread && read.status ? { ...waiting, status: read.status } : waiting;
  const job = end.kind === 'ended' ? end.job : undefined;
  const failure = failureOf(note.job, waiting, end);
  const { comment } = await keptForWriting(session, signal);
  if (!comment) return false;
  // Read again before anything is written, and again just before the comment: a run of the thread
  // may have reported this end and gone on (a new pass, its own record), or kept something owed in
  // the record, since this run read the note; that is not written over.
  if (!(await stillSame(session, comment, note, signal))) return false;
  // The docs pull requests an earlier job left, closed now that this one has its own, as the run
  // that left it at work would have once it saw the end.
  const superseded =
    job && note.superseded?.length
      ? await supersede(
          session,
          { jobId: note.job, job, confirmed: true, timedOut: false, waitedMs: 0, memory: { note } },
          signal,
        )
      : undefined;
  const left = superseded?.toClose ?? note.superseded ?? [];
  const after = {
    ...settleWaiting(withEndDocsPr({ ...note, waiting: kept }, end), end, owed),
    ...(left.length > 0 ? { superseded: left } : {}),
  };
  if (left.length === 0) delete after.superseded;
  if (!(await stillSame(session, comment, note, signal))) return false;
  await comment.write(
    body(session, {
      jobId: note.job,
      ...(end.kind === 'lost' ? {} : { job: end.job }),
      ended: true,
      ...(failure ? { failure } : {}),
      timedOut: end.kind === 'overdue',
      note: after,
      ...(superseded ? { superseded: superseded.fates } : {}),
    }),
    signal,
  );
  if (waiting.status) await writeEnd(session, note.job, waiting.run, waiting.status, end, signal);
  if (!failure) {
    await writeOnDocs(session, job, undefined, signal, {
      labels: waiting.labels ?? [],
      reviewers: waiting.reviewers ?? [],
      ...(waiting.autoMerge ? { autoMerge: waiting.autoMerge } : {}),
      ...(waiting.draft ? { draft: true } : {}),
      thread: true,
    });
  }
  if (!after.waiting) await takeOff(session, signal);
  return true;
}

/**
 * Whether the note read now still waits for the same pass of the same job, its end not written,
 * owing what it owed when read (a request queued, or the merge, meanwhile is not written away).
 */
function sameWait(now: ThreadNote | undefined, read: ThreadNote): boolean {
  const [was, is] = [read.waiting, now?.waiting];
  if (!was || !is || now?.job !== read.job || is.run !== was.run || is.ended) return false;
  const queued = (w: Waiting) => (w.queued ?? []).join(',');
  return queued(is) === queued(was) && is.merge === was.merge;
}

/** The kept comment's note read afresh still waits as `note` did; else the run says so, and writes nothing. */
async function stillSame(
  session: GitHubSession,
  comment: { bodyNow(signal: AbortSignal): Promise<string | undefined> },
  note: ThreadNote,
  signal: AbortSignal,
): Promise<boolean> {
  if (sameWait(readNote((await comment.bodyNow(signal)) ?? ''), note)) return true;
  session.say(
    `The thread's record of agent job ${label(note.job)} changed meanwhile: its end is left to the run that changed it.`,
  );
  return false;
}

/** What went wrong with the waiting job, in the words a waiting run would have used; none when it completed. */
function failureOf(jobId: string, waiting: Waiting, end: WaitingNews) {
  const id = label(jobId);
  switch (end.kind) {
    case 'lost':
      return `The service no longer knows agent job ${id}, which run ${waiting.run} left at work: whether it finished is unknown. Ask again to start a new one.`;
    case 'overdue':
      return `Agent job ${id} is still at work ${formatDuration(waiting.timeout)} after run ${waiting.run} ended (its timeout): it goes on in the service, and its end is written here when it comes.`;
    case 'ended':
      if (end.job.status === 'failed') return `Agent job ${id} failed.`;
      if (end.job.status === 'archived') return `Agent job ${id} was archived before it completed.`;
      return undefined;
  }
}

/**
 * The pending status's last word, on its own commit and in its own context, naming the starting
 * run — for a record read back: only where the record passes the checks (checkWaiting). An overdue
 * mark on a branch keeps naming the docs pull request the job `supersedes`.
 */
export async function endStatus(
  session: GitHubSession,
  jobId: string,
  waiting: Pick<Waiting, 'run' | 'status'>,
  end: WaitingNews,
  signal: AbortSignal,
  supersedes?: string,
): Promise<void> {
  const { status } = (await soundRecord(session, jobId, waiting, signal)).waiting;
  if (status) await writeEnd(session, jobId, waiting.run, status, end, signal, supersedes);
}

/** The status's last word, on a commit and in a context the record's check let through. */
async function writeEnd(
  session: GitHubSession,
  jobId: string,
  run: number,
  at: { sha: string; context: string },
  end: WaitingNews,
  signal: AbortSignal,
  supersedes?: string,
): Promise<void> {
  const link = end.kind === 'ended' ? (end.job.prLink ?? '') : '';
  const [state, word]: [StatusState, string] =
    end.kind === 'lost'
      ? ['error', JOB_WORDS.lost]
      : end.kind === 'overdue'
        ? ['error', JOB_WORDS.timedOut]
        : end.job.status === 'completed'
          ? ['success', link ? JOB_WORDS.completed : JOB_WORDS.noChanges]
          : ['failure', end.job.status === 'failed' ? JOB_WORDS.failed : JOB_WORDS.archived];
  const target = isPullRequestUrl(link) ? link : session.runUrl;
  const carried = statusDescription(supersedingWord(word, supersedes), jobId, run);
  const { text } = carried.fits ? carried : statusDescription(word, jobId, run);
  const status = statusIn(session, at.context);
  // Only over the pass's own word, or a run's stop that names no job: a newer pass's status on the
  // same commit (a run of the thread that went on meanwhile) is not written over. Unread, it is
  // written as before.
  const own = await status.read(at.sha, signal).catch(() => undefined);
  if (own?.job !== undefined && (own.job !== jobId || own.run !== run || own.ended)) return;
  await status.write(at.sha, state, text, target, signal, session.warn);
}

/**
 * The record of job `jobId` as this step may act on it: its status only on a commit, and in a
 * context, where GitHub says this action's identity wrote a status naming the job (the step's
 * own, or the thread step's for a separate report step: never a context the action did not write
 * for the job, such as a required check's), its labels and reviewers only names the inputs would
 * take. What is left out is one warning; `unread`: the
 * commit could not be read, so its status is left out unjudged.
 */
async function soundRecord<T extends Pick<Waiting, 'run' | 'status' | 'labels' | 'reviewers'>>(
  session: GitHubSession,
  jobId: string,
  waiting: T,
  signal: AbortSignal,
): Promise<{ waiting: T; unread?: true }> {
  const own = session.statusContext;
  const commits = await vouched(session, jobId, waiting, signal);
  const unread = commits === 'unread';
  // The step's own context, or the record's where this identity's status there names the job: a
  // separate report step (`sweep: true`, its own context) ends the thread step's status, and a
  // record cannot reach a context the action never wrote for the job (a required check's).
  const context = !unread && commits.length > 0 && waiting.status ? waiting.status.context : own;
  const { waiting: sound, refused } = checkWaiting(waiting, { context, commits: unread ? [] : commits });
  // A commit that could not be read was said already, in its own words.
  if (refused && unread) delete refused.status;
  if (refused && (refused.status || refused.labels.length + refused.reviewers.length > 0))
    session.warn(refusedWarning(jobId, waiting.run, refused, context));
  return unread ? { waiting: sound, unread } : { waiting: sound };
}

/**
 * The record's commit, when GitHub says it carries the action's status for the job: a status
 * this step's identity wrote there in the record's context names the job (or, for an id too long or odd for
 * a status to show, names only the run that left it at work) — any of them, not only the newest: a
 * later run on the same commit may have written over it. Nothing cheaper vouches for the commit:
 * the note's `head` is written by the same hand as the record, and the head a run reads is usually
 * newer (the push that brings the thread's next run moved it). A read that fails vouches for
 * nothing (`unread`, said in a warning): the status is left as it is.
 */
async function vouched(
  session: GitHubSession,
  jobId: string,
  waiting: Pick<Waiting, 'run' | 'status'>,
  signal: AbortSignal,
): Promise<string[] | 'unread'> {
  const at = waiting.status;
  if (!at) return [];
  try {
    const named = await session.retrying(
      () => carriesJob(session, at.sha, at.context, { jobId, run: waiting.run }, signal),
      signal,
    );
    return named ? [at.sha] : [];
  } catch (error) {
    session.warn(
      `Could not read the commit statuses on ${label(at.sha.slice(0, 12))} that the record of agent job ${label(jobId)} names (${describeThrown(error)}): its status is left as it is.`,
    );
    return 'unread';
  }
}

/**
 * The pages of a commit's statuses read for the job (every context's, 100 a page), as a re-run
 * reads its own: anyone with `statuses: write` can push the step's under newer ones.
 */
const STATUS_PAGES = 100;

/** Whether a status this step's identity wrote on `sha` in `context` names the job. */
async function carriesJob(
  session: GitHubSession,
  sha: string,
  context: string,
  { jobId, run }: { jobId: string; run: number },
  signal: AbortSignal,
): Promise<boolean> {
  const { owner, repo } = session.run.repo;
  const login = await session.ownLogin(signal);
  const unshown = !statusDescription(JOB_WORDS.goesOn, jobId, run).fits;
  try {
    let pages = 0;
    for await (const statuses of session.forRepo().statuses({ owner, repo, ref: sha }, signal)) {
      for (const status of statuses) {
        if (status.creator !== login || status.context !== context) continue;
        const said = readStatusNote(status.description);
        if (said?.job === jobId || (unshown && said && !said.job && said.run === run)) return true;
      }
      if (++pages >= STATUS_PAGES) break;
    }
    return false;
  } catch (error) {
    // A commit GitHub no longer has carries nothing.
    if (faultOf(error).gone) return false;
    throw error;
  }
}

/** This step's commit status in `context`, over the session's client and identity. */
function statusIn(session: GitHubSession, context: string): CommitStatus {
  return new CommitStatus(
    () => session.forRepo(),
    (s) => session.ownLogin(s),
    session.run,
    context,
    session.runUrl,
    session.say,
  );
}

/**
 * A report run's write of one waiting thread's end: over a session pinned to that thread and its
 * kept comment, as the run that left the job at work asked. `false`, with nothing written, when
 * the comment no longer waits for that job (another run reported it since it was found).
 */
export async function reportWaitingThread(
  session: GitHubSession,
  found: WaitingThread,
  end: WaitingNews,
  signal: AbortSignal,
): Promise<boolean> {
  const pinned = session.pinnedTo({ thread: found.thread, marker: found.marker });
  const { comment } = await keptForWriting(pinned, signal);
  const now = comment
    ? session.trusted(readNote((await comment.body(signal)) ?? ''), 'the kept comment')
    : undefined;
  const fresh = now?.waiting;
  if (!fresh || now.job !== found.note.job || fresh.run !== found.note.waiting?.run) return false;
  // Written once: an end another run wrote meanwhile, or the same overdue mark, is not written again.
  if (fresh.ended || (end.kind === 'overdue' && fresh.overdue)) return false;
  return writeWaitingEnd(pinned, now, end, owes(now), signal);
}

/**
 * A lane run's word on its thread's record once its replay sent none of what was owed (see
 * `SweepSide.settleOwed`): read afresh, still job `jobId`'s, its merge and queued requests dropped
 * (the requests stay open in the request ledger, for the thread's next send), and the record gone,
 * with the label, once its end is written. The lane's runs are serialized, so nothing of the thread
 * writes between this read and this write.
 */
export async function settleOwed(session: GitHubSession, jobId: string, signal: AbortSignal): Promise<void> {
  const { comment } = await keptForWriting(session, signal);
  const now = comment && session.trusted(readNote((await comment.bodyNow(signal)) ?? ''), 'the kept comment');
  if (!comment || !now?.waiting || now.job !== jobId || !owes(now)) return;
  const rest = { ...now.waiting };
  delete rest.merge;
  delete rest.queued;
  delete rest.docs;
  const note = rest.ended ? clearWaiting(now) : { ...now, waiting: rest };
  await comment.write((previous) => withNote(previous ?? '', note), signal);
  if (!note.waiting) await takeOff(session, signal);
}

/**
 * A lane run's record that `/docs` was asked on the docs pull request `link` while job `jobId`
 * works (`SweepSide.oweDocs`): read afresh, still that job's and still at work, its record owes it
 * (the run that writes the end hands the thread off again): `written` now, `owed` already, or
 * `false` (the record no longer waits for that job). Only the
 * thread's lane writes it, so nothing of the thread writes between this read and this write.
 */
export async function oweDocsAsk(
  session: GitHubSession,
  jobId: string,
  link: string,
  signal: AbortSignal,
): Promise<'written' | 'owed' | false> {
  const { comment } = await keptForWriting(session, signal);
  const now = comment && session.trusted(readNote((await comment.bodyNow(signal)) ?? ''), 'the kept comment');
  if (!comment || !now?.waiting || now.job !== jobId || now.waiting.ended) return false;
  if (now.waiting.docs === link) return 'owed';
  const note = oweDocs(now, link);
  await comment.write((previous) => withNote(previous ?? '', note), signal);
  return 'written';
}
