// The end of a thread's job that no run waited for (`wait: false`), written by the first run that
// reads it: the kept comment with the result and the record cleared, the commit status the
// starting run left `pending` — on its commit and in its context, so a required check resolves —
// what that run asked of the docs PR (labels, reviewers, auto-merge), and the label off the thread.
import { formatDuration } from '../core/duration.js';
import type { ThreadNote, Waiting, WaitingNews } from '../core/ports.js';
import { isPullRequestUrl, label } from '../core/untrusted.js';
import { owes, settleWaiting } from '../core/ledger.js';
import { writeOnDocs } from './docs-pr.js';
import { takeOff, type WaitingThread } from './in-flight.js';
import { readNote } from './note.js';
import type { GitHubSession } from './session.js';
import { CommitStatus, JOB_WORDS, statusDescription, type StatusState } from './status.js';
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
): Promise<void> {
  const { waiting } = note;
  if (!waiting) return;
  const job = end.kind === 'ended' ? end.job : undefined;
  const failure = failureOf(note.job, waiting, end);
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
  const left = superseded?.waiting ?? note.superseded ?? [];
  const after = { ...settleWaiting(note, end, owed), ...(left.length > 0 ? { superseded: left } : {}) };
  if (left.length === 0) delete after.superseded;
  const { comment } = await keptForWriting(session, signal);
  await comment?.write(
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
  if (waiting.status) await endStatus(session, note.job, waiting, end, signal);
  if (!failure) {
    await writeOnDocs(session, job, undefined, signal, {
      labels: waiting.labels ?? [],
      reviewers: waiting.reviewers ?? [],
      ...(waiting.autoMerge ? { autoMerge: waiting.autoMerge } : {}),
      thread: true,
    });
  }
  if (!after.waiting) await takeOff(session, signal);
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

/** The pending status's last word, on its own commit and in its own context, naming the starting run. */
export async function endStatus(
  session: GitHubSession,
  jobId: string,
  waiting: Pick<Waiting, 'run' | 'status'>,
  end: WaitingNews,
  signal: AbortSignal,
): Promise<void> {
  const at = waiting.status;
  if (!at) return;
  const status = new CommitStatus(
    () => session.forRepo(),
    (s) => session.ownLogin(s),
    session.run,
    at.context,
    session.runUrl,
    session.say,
  );
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
  const { text } = statusDescription(word, jobId, waiting.run);
  await status.write(at.sha, state, text, target, signal, session.warn);
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
  await writeWaitingEnd(pinned, now, end, owes(now), signal);
  return true;
}
