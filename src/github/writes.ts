// What the writing steps share: the commit status as the job goes, the kept comment found for
// writing, the body and the note a write puts in it, and the reaction on the request. Each is a
// function of the session and of what the caller hands it; what was said once a run is handed
// back as a value.
import type { Carried, Memory, Outcome, StatusNote, ThreadNote, Waiting } from '../core/ports.js';
import type { KeptComment } from './comment.js';
import { commentBody } from './comment.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { readNote } from './note.js';
import { isTerminal, type AgentJob } from '../core/job.js';
import { docsPrOf } from '../core/docs-record.js';
import { branchUses, nextLedger, projectKey, settled, WAITING_NAMES } from '../core/ledger.js';
import type { GitHubSession } from './session.js';
import {
  JOB_WORDS,
  runOnlyDescription,
  statusDescription,
  supersedingWord,
  type StatusState,
} from './status.js';
import { recordBranchWaiting } from './branch-record.js';

/** How long GitHub gets for the first comment (and the reaction), and for everything at the end. */
export const STARTED_BUDGET_MS = 30_000;
export const FINISH_BUDGET_MS = 30_000;

/**
 * This step's status on the run's commit, when `status` asked for one; faults are warnings. The
 * job id left out of the description is said once a run: `idLeftOutSaid` says whether it was, and
 * the value returned whether it is now. `job.uses`: the count of its quota uses a branch keeps.
 * `supersedes`: on a branch, the docs pull request (`owner/repo#N`) an earlier job left, which the
 * status of a job at work names for the run that writes its end.
 */
export async function writeStatus(
  session: GitHubSession,
  state: StatusState,
  word: string,
  job: { id: string; uses?: number } | undefined,
  target: string,
  signal: AbortSignal,
  idLeftOutSaid = false,
  supersedes?: string,
): Promise<boolean> {
  const { status, run, log } = session;
  if (!status) return idLeftOutSaid;
  const { sha, none } = await session.runCommits(signal);
  if (!sha) {
    if (state === 'pending' || !job) log.notice(`No commit status: ${none ?? 'the event names no commit'}.`);
    return idLeftOutSaid;
  }
  let text = runOnlyDescription(word, run.runId);
  let said = idLeftOutSaid;
  let named = false;
  if (job) {
    const carried = carrying(session, word, job, supersedes);
    const description = statusDescription(carried, job.id, run.runId, job.uses);
    if (!description.fits && !said) {
      said = true;
      session.warn(
        `The job id ${description.why}: the status leaves it out, so a re-run cannot resume from the status.`,
      );
    }
    text = description.text;
    named = description.fits;
  }
  // CommitStatus.write tells a fault only through the warning it gives.
  let written = true;
  const warn = (message: string) => {
    written = false;
    session.warn(message);
  };
  await status.write(sha, state, text, target, signal, warn);
  // A branch's job left at work is recorded for report runs once its status is there to vouch for
  // it: the record names no job a status does not.
  if (written && named && job && state === 'pending' && word === JOB_WORDS.goesOn)
    await recordBranchWaiting(session, sha, job.id, signal);
  return said;
}

/**
 * The word of a status naming `job`, with the docs pull request it supersedes where a word of a
 * job at work can carry it within the description's bound; where not, the log says so.
 */
function carrying(
  session: GitHubSession,
  word: string,
  job: { id: string; uses?: number },
  supersedes: string | undefined,
): string {
  if (!supersedes) return word;
  const carried = supersedingWord(word, supersedes);
  const fits = carried !== word && statusDescription(carried, job.id, session.run.runId, job.uses).fits;
  if (fits) return carried;
  session.log.info(
    `The earlier docs pull request ${supersedes} stays open: ${carried === word ? `the commit status says "${word}", not that agent job ${job.id} is at work` : 'the commit status has no room to name it'}, so no run closes it. Close it by hand once the thread's job has its own.`,
  );
  return word;
}

/**
 * The job a status names, and, with `budget` on a branch pushed to directly (where no comment
 * keeps a total), the quota uses that job has spent, as the ledger counts them (`branchUses`).
 */
export async function namedJob(
  session: GitHubSession,
  jobId: string,
  memory: Memory,
  uses: number,
  signal: AbortSignal,
): Promise<{ id: string; uses?: number }> {
  const { request } = session;
  if (!session.status || !request.thread || request.budget === undefined) return { id: jobId };
  // A pull request's or issue's total is in its note; a fault finding the comment counts nothing.
  const kept = await session.keptComment(signal).catch(() => undefined);
  if (!kept || !('none' in kept)) return { id: jobId };
  const count = branchUses(memory, jobId, uses);
  return count === undefined ? { id: jobId } : { id: jobId, uses: count };
}

/**
 * The kept comment, for writing: none is one notice that says why (unless `noneSaid`: once a run),
 * a fault a warning. `last`: no later write of this run asks again, so the warning says the
 * comment is not written (and nothing of a job, which a run that failed before one never had).
 */
export async function keptForWriting(
  session: GitHubSession,
  signal: AbortSignal,
  noneSaid = false,
  last = false,
): Promise<{ comment?: KeptComment; noneSaid: boolean }> {
  try {
    const found = await session.keptComment(signal);
    if ('none' in found) {
      if (!noneSaid) session.log.notice(`No comment posted: ${found.none}.`);
      return { noneSaid: true };
    }
    return { comment: found.comment, noneSaid };
  } catch (error) {
    // A final fault stays the look-up's answer for the run: said once, not again by each writer.
    if (noneSaid) return { noneSaid };
    const { owner, repo } = session.run.repo;
    const said = describeGitHubFault(error, {
      what: 'find the pull request the pushed commit came from',
      token: 'githubToken',
      permission: 'contents: read and pull-requests: read',
      repo: `${owner}/${repo}`,
      ...(last ? { fails: true } : {}),
    });
    session.warn(last ? `${said} Its comment is not written by this run.` : said);
    return { noneSaid: faultOf(error).final };
  }
}

/** The comment's Markdown, under the session's marker, linking the workflow run. */
export function body(
  session: GitHubSession,
  state: Omit<Parameters<typeof commentBody>[1], 'runUrl'>,
): string {
  return commentBody(session.marker, { ...state, runUrl: session.runUrl });
}

/**
 * The note after this run: written from what was read before the create (or, where nothing was,
 * from the comment as it stands), so every writer of the kept comment keeps it. `superseded`: the
 * docs pull requests still waiting to be closed, when the run dealt with them; `job`, the job as
 * last read, whose docs pull request the note records as the job's.
 */
export function note(
  session: GitHubSession,
  jobId: string,
  head: string | undefined,
  memory: Memory,
  previous: string | undefined,
  uses = 0,
  superseded?: string[],
  waiting?: Waiting | null,
  job?: AgentJob,
): ThreadNote {
  const { run } = session;
  const before = memory.note ?? readNote(previous ?? '');
  const docsPr = job?.id === jobId ? docsPrOf(job) : undefined;
  return nextLedger(before, {
    job: jobId,
    head,
    run: run.runId,
    attempt: run.runAttempt,
    uses,
    ...(superseded ? { superseded } : {}),
    ...(docsPr ? { docsPr } : {}),
    ...(memory.carried ? { requests: settled(memory.carried, run.runId, uses > 0) } : {}),
    ...(memory.carried?.docs
      ? { docs: { pr: memory.carried.docs.key, requests: settled(memory.carried.docs, run.runId, uses > 0) } }
      : {}),
    ...(waiting !== undefined ? { waiting } : {}),
    ...(memory.merge && uses > 0 ? { merged: true } : {}),
  });
}

/**
 * A run that sent nothing (a re-run that resumes the job) on a job whose pass the thread's record
 * keeps at work — another run's, or its own first attempt's: that record and its pending status
 * stand, and this run writes neither (its commit may not be the pass's).
 */
export function passRecorded(outcome: Outcome): boolean {
  const { note } = outcome.memory;
  const pass = note?.waiting;
  return !outcome.uses && !!pass && !pass.ended && note?.job === outcome.jobId;
}

/**
 * What the thread records of its job once this run ends: left at work by a run that did not wait
 * (`wait: false`, the job not ended, nothing failed), with what reporting its end needs; `null`
 * when this run saw the job end (its end is reported here); else nothing new (`undefined`).
 */
export async function waitingRecord(
  session: GitHubSession,
  outcome: Outcome,
  signal: AbortSignal,
): Promise<Waiting | null | undefined> {
  const { request, status, run } = session;
  const { job, failure } = outcome;
  if (!request.thread || !job) return undefined;
  if (isTerminal(job.status)) return null;
  if (request.wait || failure || passRecorded(outcome)) return undefined;
  const sha = status ? (await session.runCommits(signal)).sha : undefined;
  const names = (list: string[]) => list.slice(0, WAITING_NAMES);
  return {
    run: run.runId,
    at: outcome.endedAt ?? session.clock.now(),
    timeout: request.timeout,
    project: projectKey(request.baseUrl, request.projectId),
    ...(status && sha ? { status: { sha, context: status.context } } : {}),
    ...(request.labels.length > 0 ? { labels: names(request.labels) } : {}),
    ...(request.reviewers.length > 0 ? { reviewers: names(request.reviewers) } : {}),
    ...(request.autoMerge ? { autoMerge: request.autoMerge } : {}),
    ...(request.draft ? { draft: true as const } : {}),
  };
}

/**
 * The `/docs` requests this run carried besides its own, once the service accepted its send (a
 * run that only waits sent none of them).
 */
export function carried(memory: Memory, uses: number | undefined): Carried['requests'] {
  return (uses ?? 0) > 0 ? (memory.carried?.requests ?? []) : [];
}

/**
 * The 👀 on the `/docs` comment that asked, and on each request queued on the thread that this
 * run carried: each request was taken and a job exists. Never rejects; one warning at most.
 */
export async function acknowledge(session: GitHubSession, queued: Carried['requests'] = []): Promise<void> {
  const { asked } = session.request;
  const comments = [...(asked ? [asked] : []), ...queued.filter((r) => r.id !== asked?.id)];
  if (comments.length === 0) return;
  const { owner, repo } = session.run.repo;
  const { signal, done } = session.budget(STARTED_BUDGET_MS);
  let failed: { error: unknown } | undefined;
  try {
    for (const comment of comments) {
      await session
        .forRepo()
        .react({ owner, repo, comment_id: comment.id, review: comment.review, content: 'eyes' }, signal)
        .then(() => session.say(`Reacted 👀 to the request in comment ${comment.id}.`))
        .catch((error: unknown) => (failed ??= { error }));
    }
  } finally {
    done();
  }
  if (failed) {
    const { error } = failed;
    session.warn(
      describeGitHubFault(error, {
        what: `react to the comment that asked for docs on ${owner}/${repo}`,
        token: 'githubToken',
        permission: asked?.review ? 'pull-requests: write' : 'issues: write or pull-requests: write',
        repo: `${owner}/${repo}`,
      }),
    );
  }
}

/**
 * This step's own status on the run's commit, as a record read back (its job id checked); none
 * without `status`, and none when it cannot be read (a write then goes ahead as it would have).
 */
export async function ownStatus(
  session: GitHubSession,
  signal: AbortSignal,
): Promise<{ sha?: string; own?: StatusNote }> {
  if (!session.status) return {};
  const { sha } = await session.runCommits(signal);
  const read = sha ? await session.status.read(sha, signal).catch(() => undefined) : undefined;
  const own = session.trusted(read, 'the commit status');
  return { ...(sha ? { sha } : {}), ...(own ? { own } : {}) };
}
