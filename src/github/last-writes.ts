// What report writes on GitHub at the end: the kept comment's last update, the final status, the
// reaction (when no first write made it), the docs pull request's labels, reviewers and
// auto-merge, the label taken off, and the answer on a skip. What execute started is handed in as
// a value: the last writes wait for it, so that they neither race it nor make a second comment.
import { describeThrown } from '../core/log.js';
import { isTerminal } from '../core/job.js';
import type { FirstPost, GitHubStarted, Outcome, Owed, ReportWrites, ThreadNote } from '../core/ports.js';
import { owe, oweMerge } from '../core/ledger.js';
import { isPlainHttpUrl, isPullRequestUrl, label, printableUrl, quote } from '../core/untrusted.js';
import { outputLink } from '../core/pull-request.js';
import { answerOnDocs, docsPageOf } from './docs-asks.js';
import { handOff } from './hand-off.js';
import { answerBody, latestRunBody } from './comment.js';
import { docsFollowCode, writeOnDocs } from './docs-pr.js';
import { markAtWork, unmarkAtWork } from './in-flight.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { readNote } from './note.js';
import { within, type GitHubSession } from './session.js';
import { supersede, type SupersededReport } from './supersede.js';
import { JOB_WORDS, unconfirmedFollowUp } from './status.js';
import { findThread } from './target.js';
import { endStatus, writeWaitingEnd } from './waiting-end.js';
import {
  acknowledge,
  body,
  carried,
  FINISH_BUDGET_MS,
  keptForWriting,
  namedJob,
  note,
  ownStatus,
  passRecorded,
  waitingRecord,
  writeStatus,
} from './writes.js';

export function reportWrites(session: GitHubSession): ReportWrites {
  return {
    /**
     * The step ends: the comment's last update (a run with no job the service confirmed adds its
     * failure under the last result, and leaves the note as it was), the final status, then labels
     * and reviewers; the comment's URL. `cancellation` is the step's: once it fires, GitHub gets
     * only a short while more.
     */
    async finish(outcome, started, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      const cancelled = cancellation.aborted;
      const { comment } = session.request;
      let url: string | undefined;
      try {
        if (outcome.jobId && outcome.confirmed)
          await within(
            started?.reaction ?? acknowledge(session, carried(outcome.memory, outcome.uses)),
            signal,
          );
        // The first writes must be done before the last ones start, or both could create a
        // comment, or the pending status land after the final one.
        const first = await firstPost(started, signal);
        // Before the comment, which says what became of the earlier docs pull requests. After a
        // cancellation the little time left is the comment's and the status's.
        const superseded = cancelled
          ? leftAlone(session, outcome)
          : await boundedSupersede(session, outcome, signal);
        if (!first) {
          if (comment)
            session.warn(
              'Could not update the comment with how the job ended: GitHub did not answer in time.',
            );
        } else {
          if (comment) url = await lastComment(session, outcome, cancelled, first, superseded, signal);
          await answerDocsAsks(session, outcome, url, signal);
          await finalStatus(session, outcome, cancelled, first, signal, superseded.carry);
          await earlierPending(session, outcome, signal);
          await earlierBranchPass(session, outcome, signal);
        }
        await writeOnDocs(session, outcome.job, outcome.failure, signal);
        // After the docs PR's own label: a run on it always finds one of the two. A job left at
        // work without waiting is labelled for report runs to find.
        await unmarkAtWork(session, outcome, signal);
        if (!session.request.wait && !outcome.failure) await markAtWork(session, outcome.job, signal);
      } catch (error) {
        session.warn(`Could not report the job on GitHub: ${describeThrown(error)}.`);
      } finally {
        done();
      }
      return url;
    },

    /** A bare `/docs`: the kept comment says what a request looks like, its note kept; its URL. */
    async answer(text, cancellation, owing) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        const { comment } = await keptForWriting(session, signal, false, true);
        const written = await comment?.write(
          (previous) =>
            answerBody(session.marker, text, session.runUrl, owed(readNote(previous ?? ''), owing), previous),
          signal,
        );
        return written?.url;
      } finally {
        done();
      }
    },

    /** A `/docs` on this docs pull request, handed to its thread's lane with this pull request's page. */
    async handDocsAsk(number, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        const { thread } = await session.runThread(signal);
        const link = thread && docsPageOf(session, thread);
        if (!link) return false;
        return await handOff(session, number, signal, link);
      } catch (error) {
        session.warn(`Could not hand the request to #${number}'s thread: ${describeThrown(error)}.`);
        return false;
      } finally {
        done();
      }
    },

    /** The code pull request closed (merged, or not) with nothing sent: its docs PR follows it (`draft: true`). */
    async followCode(prLink, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        await docsFollowCode(session, prLink, signal);
      } catch (error) {
        session.warn(`Could not move the docs pull request along (draft: true): ${describeThrown(error)}.`);
      } finally {
        done();
      }
    },

    /** A run on a thread that sent nothing: a success status that says why (naming `jobId`, when given, and its count). */
    async skipped(why, jobId, cancellation, memory = {}) {
      if (!session.status) return;
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        // A commit whose status holds a job's end (a merge with nothing new, on the head the last
        // push's run reported, links its docs pull request) keeps it: a skip is no end.
        const { sha, own } = await ownStatus(session, signal);
        if (own?.ended) {
          session.log.info(
            `The commit status on ${sha?.slice(0, 12)} holds the end of job ${label(own?.job ?? '')}; it is left as it is.`,
          );
          return;
        }
        const job = jobId ? await namedJob(session, jobId, memory, 0, signal) : undefined;
        await writeStatus(session, 'success', why, job, session.runUrl, signal);
      } finally {
        done();
      }
    },

    /** A waiting job's end, within the last writes' time. */
    async waitingEnd(note, end, owed, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        await writeWaitingEnd(session, note, end, owed, signal);
      } catch (error) {
        session.warn(
          `Could not report the end of the job the thread was waiting for: ${describeThrown(error)}.`,
        );
      } finally {
        done();
      }
    },

    /** `triggerLabel` off the pull request or issue it was applied to, whatever the run's outcome. */
    async removeLabel(name, cancellation) {
      const { owner, repo } = session.run.repo;
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      let number: number | undefined;
      try {
        // A label event names its pull request or issue: finding it sends no request.
        number = (await findThread(session.forRepo(), session.run, signal)).thread?.number;
        if (number === undefined) return;
        await session.forRepo().removeLabel({ owner, repo, issue_number: number, name }, signal);
        session.say(`Took the label ${name} off ${owner}/${repo}#${number}, so it can be applied again.`);
      } catch (error) {
        session.warn(
          faultOf(error).notFound
            ? `The label ${quote(name, 60)} was already gone from ${owner}/${repo}#${number}, or githubToken cannot see it.`
            : describeGitHubFault(error, {
                what: `remove the label ${name} from ${owner}/${repo}#${number}`,
                token: 'githubToken',
                permission: 'issues: write or pull-requests: write',
                repo: `${owner}/${repo}`,
              }),
        );
      } finally {
        done();
      }
    },
  };
}

/** What the first writes left, once they are done within `signal`; `undefined` when they are not. */
async function firstPost(
  started: GitHubStarted | undefined,
  signal: AbortSignal,
): Promise<FirstPost | undefined> {
  if (!started?.posting) return {};
  const settled = await within(started.posting, signal);
  return settled && (settled.value ?? {});
}

/** The comment's last word: how the job ended, or, with no job confirmed, the run's failure under the last result. */
async function lastComment(
  session: GitHubSession,
  outcome: Outcome,
  cancelled: boolean,
  first: FirstPost,
  superseded: SupersededReport,
  signal: AbortSignal,
): Promise<string | undefined> {
  const { comment } = await keptForWriting(session, signal, first.noneSaid, true);
  if (!comment) return undefined;
  const { jobId, confirmed, failure } = outcome;
  if (jobId && confirmed) {
    const head = await session.jobHead(signal);
    const waiting = await waitingRecord(session, outcome, signal);
    const written = await comment.write(
      (previous) =>
        body(session, {
          ...outcome,
          jobId,
          cancelled,
          ended: true,
          superseded: superseded.fates,
          note: note(
            session,
            jobId,
            head,
            outcome.memory,
            previous,
            outcome.uses,
            superseded.toClose,
            waiting,
            outcome.job,
          ),
          carried: carried(outcome.memory, outcome.uses),
        }),
      signal,
      first.comment,
    );
    return written.url;
  }
  const written = await comment.write(
    (previous) =>
      latestRunBody(session.marker, {
        ...(jobId ? { jobId } : {}),
        failure: failure ?? 'The run ended before the service confirmed a job.',
        runUrl: session.runUrl,
        previous,
        note: outcome.memory.note ?? readNote(previous ?? ''),
      }),
    signal,
    first.comment,
  );
  return written.url;
}

/**
 * The status's last word: how the job ended, naming it only when the service confirmed it to this
 * run; on a branch, a job at work's names the docs pull request it `supersedes`, when there is one.
 */
async function finalStatus(
  session: GitHubSession,
  outcome: Outcome,
  cancelled: boolean,
  first: FirstPost,
  signal: AbortSignal,
  supersedes?: string,
): Promise<void> {
  const { job, failure, timedOut, confirmed } = outcome;
  const { runUrl } = session;
  // A job the service did not confirm to this run is not named: a re-run must send it again.
  const jobId = confirmed ? outcome.jobId : undefined;
  if (!jobId) {
    // A failed send is its own run's failure: the end of a job a run wrote on this commit, in
    // this context, or a skip that named the job, stays (a required check that turned green is
    // not turned red by a 429).
    const { sha, own } = await ownStatus(session, signal);
    if (own?.ended || own?.held) {
      session.say(
        `The commit status on ${sha?.slice(0, 12)} holds the word of job ${label(own?.job ?? '')}; it is left as it is.`,
      );
      return;
    }
    // A follow-up's job is there even when the service did not confirm the message.
    const word = outcome.jobId
      ? unconfirmedFollowUp(outcome.jobId, session.run.runId, cancelled)
      : cancelled
        ? 'Cancelled before any job'
        : 'Stopped before any job';
    await writeStatus(session, 'error', word, undefined, runUrl, signal, first.idLeftOutSaid);
    return;
  }
  const named = await namedJob(session, jobId, outcome.memory, outcome.uses ?? 0, signal);
  const status = (state: Parameters<typeof writeStatus>[1], word: string, target = runUrl) =>
    writeStatus(session, state, word, named, target, signal, first.idLeftOutSaid, supersedes);
  if (!failure && job?.status === 'completed') {
    const link = job.prLink ?? '';
    // The check's link goes to the docs pull request only when the service's link is one: any
    // other URL it sends would be a link GitHub shows as the action's.
    await status(
      'success',
      link ? JOB_WORDS.completed : JOB_WORDS.noChanges,
      isPullRequestUrl(link) ? link : runUrl,
    );
    return;
  }
  if (job?.status === 'failed') await status('failure', JOB_WORDS.failed);
  else if (job?.status === 'archived') await status('failure', JOB_WORDS.archived);
  // wait: false: the job goes on, and so does the pending status (another run's, when this run
  // only resumed the job that run put back to work).
  else if (!failure) {
    if (passRecorded(outcome))
      session.say(
        `Agent job ${jobId} goes on in the pass run ${outcome.memory.note?.waiting?.run ?? ''} started; its status stands.`,
      );
    else await status('pending', JOB_WORDS.goesOn);
  } else {
    // The run's own stop (a read that failed, a cancellation) on a job whose end a run already
    // wrote here (a re-run that resumes it): the end stays, and the failure is the run's.
    if (!timedOut) {
      const { sha, own } = await ownStatus(session, signal);
      if (own?.ended && own.job === jobId) {
        session.say(
          `The commit status on ${sha?.slice(0, 12)} holds the end of job ${own.job}; it is left as it is.`,
        );
        return;
      }
    }
    await status(
      'error',
      cancelled ? JOB_WORDS.cancelled : timedOut ? JOB_WORDS.timedOut : JOB_WORDS.stopped,
    );
  }
}

/**
 * A job an earlier run left at work without waiting, which this run followed up and saw end: that
 * run's pending status, on its own commit and in its own context, gets the same last word.
 */
async function earlierPending(session: GitHubSession, outcome: Outcome, signal: AbortSignal): Promise<void> {
  const left = outcome.memory.note?.waiting;
  const { job, jobId } = outcome;
  if (!left?.status || !job || !isTerminal(job.status) || outcome.memory.note?.job !== jobId || !jobId)
    return;
  const own = session.status ? (await session.runCommits(signal)).sha : undefined;
  if (left.status.sha === own && left.status.context === session.status?.context) return;
  await endStatus(session, jobId, left, { kind: 'ended', job }, signal);
}

/**
 * A branch's pass an earlier push left at work, ended before this run sent (its read is in the
 * memory): that pass's pending status, on its own commit, gets its last word.
 */
async function earlierBranchPass(
  session: GitHubSession,
  outcome: Outcome,
  signal: AbortSignal,
): Promise<void> {
  const branch = outcome.memory.branch;
  if (!branch?.goesOn || !branch.ended || outcome.jobId !== branch.job || !session.status) return;
  const status = { sha: branch.since, context: session.status.context };
  await endStatus(
    session,
    branch.job,
    { run: branch.run, status },
    { kind: 'ended', job: branch.ended },
    signal,
  );
}

/** What the thread's superseded docs pull requests may take of the last writes' time. */
const SUPERSEDE_BUDGET_MS = 10_000;

/**
 * Closing superseded docs pull requests within its own share of the time, so that the comment and
 * the final status always have theirs (a required check must not stay pending).
 */
async function boundedSupersede(session: GitHubSession, outcome: Outcome, signal: AbortSignal) {
  const { signal: share, done } = session.budget(SUPERSEDE_BUDGET_MS, signal);
  try {
    return await supersede(session, outcome, AbortSignal.any([signal, share]));
  } finally {
    done();
  }
}

/** A cancelled run deals with no superseded docs pull request: the one its refused follow-up named stays open. */
function leftAlone(session: GitHubSession, outcome: Outcome): SupersededReport {
  const link = outputLink(outcome.replaced?.prLink);
  if (link)
    session.log.info(`The run was cancelled: the docs pull request ${printableUrl(link)} stays open.`);
  return { fates: [] };
}

/**
 * The requests asked on the thread's docs pull request that this run's accepted send carried: the
 * 👀 on each, and one answer there that links the thread's kept comment (`url`).
 */
async function answerDocsAsks(
  session: GitHubSession,
  outcome: Outcome,
  url: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const docs = outcome.memory.carried?.docs;
  const { jobId } = outcome;
  if (!docs || docs.requests.length === 0 || !outcome.confirmed || !outcome.uses || !jobId) return;
  // Its own fault is its own warning: the status and the rest of the last writes still go.
  const thread = await session.runThread(signal).then(
    (found) => found.thread,
    () => undefined,
  );
  const where = thread ? `#${thread.number}` : 'its thread';
  const link = url && isPlainHttpUrl(url) ? `[${where}'s comment](${url})` : where;
  const many =
    docs.requests.length === 1 ? 'This request was' : `These ${docs.requests.length} requests were`;
  await answerOnDocs(
    session,
    docs.link,
    docs.requests.map((r) => r.id),
    outcome.replaced
      ? `${many} sent to agent job ${label(jobId)}, which took the thread over from job ${label(outcome.replaced.jobId)} (the service took no more follow-ups for it); ${link} follows it.`
      : `${many} sent to agent job ${label(jobId)}, which opened this pull request; ${link} follows it.`,
    signal,
  );
}

/** The note with what the thread is `owed` kept for its waiting job, when there is one. */
function owed(note: ThreadNote | undefined, what: Owed | undefined): ThreadNote | undefined {
  if (!note || !what) return note;
  return 'merge' in what ? oweMerge(note) : owe(note, what.request);
}
