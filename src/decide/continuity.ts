import { ServiceError, type AgentClient, type Fault } from '../service/client.js';
import type { Clock } from '../core/clock.js';
import { ActionFailure, briefly, explain, isTransient, type FaultContext } from '../service/errors.js';
import { isTerminal, type AgentJob } from '../core/job.js';
import { type Log } from '../core/log.js';
import { label } from '../core/untrusted.js';
import { modeOf, type Mode } from '../core/mode.js';
import type { DocsPull, Memory, ThreadNote } from '../core/ports.js';

/** Which way the run goes with the job, decided before anything is sent. */
export type Plan =
  /**
   * The thread's maintainers said no (its docs PR closed unmerged): nothing starts until asked.
   * `status` is the commit status's description, so a required check does not wait for a job.
   */
  | { kind: 'skip'; notice: string; status: string }
  | {
      kind: 'go';
      mode: Mode;
      /** The head commit the thread's job last saw: a follow-up's context is what changed since. */
      since?: string;
      /** A follow-up to the thread's job (not one `jobId` named): a refusal gives way to a create. */
      thread?: { jobId: string; prLink?: string | null };
    };

export interface PlanRequest {
  prompt?: string;
  jobId?: string;
  projectId: string;
  thread: boolean;
  /** This run, as the runner names it: `GITHUB_RUN_ID` and `GITHUB_RUN_ATTEMPT`. */
  runId: number;
  attempt: number;
  /** Someone asked for this run (a `/docs` request, a run by hand): a closed docs PR is no answer to it. */
  asked: boolean;
  /** The trigger phrase, when requests are read: the closed docs PR's status names it. */
  trigger?: string;
}

/** What planning needs besides memory: the service (the thread's job) and GitHub (its docs PR). */
export interface PlanDeps {
  client: Pick<AgentClient, 'getJob'>;
  docsPull?: (prLink: string) => Promise<DocsPull>;
  log: Log;
  clock: Clock;
  /** Clock time by which the step must be done: reads of the thread's job are retried until near it. */
  deadline: number;
  context: FaultContext;
  signal: AbortSignal;
  /** The thread's job as this run already read it (to report a waiting job's end): not read again. */
  known?: AgentJob;
}

/** Waits between reads of the thread's job after a passing fault, as a poll would wait them out. */
const THREAD_READ_WAITS_MS = [2000, 4000, 8000, 16000];

/**
 * Before anything is sent: a re-run resumes the job its earlier attempt started; on a thread, a
 * later run follows the thread's job up while that job is active or its docs pull request is
 * open; anything else creates a job. A job given by `jobId` is the workflow's own choice. A fault
 * never decides the way: reads are retried, and a read that still fails ends the step with
 * nothing sent (its re-run decides again).
 */
export async function planJob(
  request: PlanRequest,
  memory: Memory | undefined,
  deps: PlanDeps,
): Promise<Plan> {
  const { log } = deps;
  const given = modeOf(request);
  if (request.jobId !== undefined) return { kind: 'go', mode: given };
  if (!memory) {
    if (request.attempt > 1 && given.kind === 'create') {
      log.info(
        `Attempt ${request.attempt} of this run: nothing on GitHub can tell which job an earlier attempt may have started, so this attempt creates its own. With status: true (or comment: true), a re-run resumes it.`,
      );
    }
    return { kind: 'go', mode: given };
  }

  if (request.attempt > 1) {
    const earlier = earlierAttemptJob(memory, request);
    if (earlier) {
      log.info(
        `Attempt ${request.attempt} of this run: resuming agent job ${label(earlier)}, which an earlier attempt started, instead of starting another.`,
      );
      return { kind: 'go', mode: { kind: 'resume', jobId: earlier } };
    }
    log.info(
      `Attempt ${request.attempt} of this run: no job of an earlier attempt was found on GitHub, so this attempt goes on as a new run.`,
    );
  }

  const { job: threadJob, since } = request.thread ? threadOf(memory) : {};
  if (!threadJob || request.prompt === undefined) return { kind: 'go', mode: given };
  const onPullRequest = memory.note !== undefined;
  const where = onPullRequest ? 'the thread' : 'the branch';
  const job = await readThreadJob(threadJob, where, deps);
  if (!job) return { kind: 'go', mode: given };
  const followUp: Plan = {
    kind: 'go',
    mode: { kind: 'follow-up', jobId: threadJob },
    ...(since ? { since } : {}),
    thread: { jobId: threadJob, prLink: job.prLink },
  };
  if (!isTerminal(job.status)) {
    log.info(`Agent job ${label(threadJob)} of ${where} is ${label(job.status)}: this run follows it up.`);
    return followUp;
  }
  if (job.status !== 'completed') {
    log.info(
      `Agent job ${label(threadJob)} of ${where} ${job.status === 'failed' ? 'failed' : 'was archived'}: a new job is started.`,
    );
    return { kind: 'go', mode: given };
  }
  if (!job.prLink) {
    log.info(
      `Agent job ${label(threadJob)} of ${where} completed without a docs pull request: a new job is started.`,
    );
    return { kind: 'go', mode: given };
  }
  const pull: DocsPull = deps.docsPull ? await deps.docsPull(job.prLink) : { state: 'elsewhere' };
  switch (pull.state) {
    case 'open':
      log.info(
        `The docs pull request ${pull.repo}#${pull.number} of ${where} is still open: this run follows agent job ${label(threadJob)} up.`,
      );
      return followUp;
    case 'merged':
      log.info(
        `The docs pull request ${pull.repo}#${pull.number} of ${where} was merged: a new job is started.`,
      );
      return { kind: 'go', mode: given };
    case 'closed':
      // A pull request's maintainers closed its docs unmerged: that "no" holds for its later
      // pushes. A branch has no one to ask, so its next push starts afresh.
      if (onPullRequest && !request.asked) {
        return {
          kind: 'skip',
          notice: `Skipped: the docs pull request ${pull.repo}#${pull.number} of this thread was closed without merging, so later pushes start no docs job. Ask with the trigger phrase, or run the workflow by hand, to start a new one.`,
          status: closedStatus(request.trigger),
        };
      }
      log.info(
        `The docs pull request ${pull.repo}#${pull.number} of ${where} was closed without merging: a new job is started.`,
      );
      return { kind: 'go', mode: given };
    case 'elsewhere':
      log.warning(
        `The docs pull request of agent job ${label(threadJob)} is ${pull.why ?? 'not a pull request on this GitHub'}, so whether it is still open cannot be read: a new job is started.`,
      );
      return { kind: 'go', mode: given };
  }
}

/**
 * The closed docs PR's status description: what happened and how to start again, within GitHub's
 * 140 characters with the run's ` · run N` after it (a long phrase is not quoted).
 */
function closedStatus(trigger: string | undefined): string {
  const ask = trigger && [...trigger].length <= 40 ? `ask with ${trigger}` : 'ask for docs';
  return `Docs PR closed unmerged: ${ask} to start again`;
}

/**
 * The thread's job and the head it last saw: a pull request's or issue's in its note, else a
 * branch's in this step's commit statuses (read only where there is no note).
 */
export function threadOf(memory: Memory): { job?: string; since?: string } {
  const job = memory.note?.job ?? memory.branch?.job;
  const since = memory.note?.head ?? memory.branch?.since;
  return { ...(job ? { job } : {}), ...(since ? { since } : {}) };
}

/**
 * The job an earlier attempt of this run started, as the thread's note or this step's status on the
 * run's commit remembers it: a re-run resumes it, and nothing holds a resume back.
 */
export function earlierAttemptJob(
  memory: Memory,
  run: { runId: number; attempt: number },
): string | undefined {
  if (run.attempt <= 1) return undefined;
  // A skip's status names the thread's job, which that run did not start.
  const { status } = memory;
  return (
    jobOfRun(memory.note, run.runId) ?? (status?.run === run.runId && !status.held ? status.job : undefined)
  );
}

/** The job an earlier attempt of run `runId` started, as the thread's note remembers it. */
function jobOfRun(note: ThreadNote | undefined, runId: number): string | undefined {
  if (!note) return undefined;
  return note.runs?.find((entry) => entry.run === runId)?.job ?? (note.run === runId ? note.job : undefined);
}

/**
 * The thread's job as the service knows it; `undefined` (and a new job) only when the service
 * says it no longer knows it (404). Passing faults are waited out like a poll's; a read that still
 * fails ends the step before anything is sent, never a second job.
 */
export async function readThreadJob(
  id: string,
  where: string,
  deps: Omit<PlanDeps, 'docsPull'>,
  gone = 'a new job is started',
): Promise<AgentJob | undefined> {
  const { client, log, clock, deadline, signal } = deps;
  if (deps.known?.id === id) return deps.known;
  const context: FaultContext = { ...deps.context, operation: 'get', jobId: id };
  for (let tries = 0; ; tries++) {
    let fault: Fault;
    try {
      return await client.getJob(id, { signal });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      fault = error.fault;
    }
    if (fault.kind === 'http' && fault.status === 404) {
      log.info(`Agent job ${label(id)} of ${where} is no longer known to the service: ${gone}.`);
      return undefined;
    }
    // The thread's job is not new (a 404 was final above): any other fault reads as a poll's would.
    const passing = isTransient(fault, Infinity);
    // As many reads as the table has, whatever the service's `Retry-After` says: it may lengthen
    // a wait, never add one (a service saying "1 s" each time would otherwise be read until the
    // deadline).
    const planned = THREAD_READ_WAITS_MS[tries];
    const said = fault.kind === 'http' ? fault.retryAfterMs : undefined;
    const wait = planned === undefined ? undefined : Math.max(planned, said ?? 0);
    if (!passing || wait === undefined || clock.now() + wait > deadline) {
      if (!passing) throw new ActionFailure(explain(fault, context));
      throw new ActionFailure(
        `Could not read agent job ${label(id)}, which ${where} follows (${briefly(fault)}). Nothing was sent, so the thread does not get a second job; re-run the workflow once the service answers.`,
      );
    }
    log.warning(`Could not read agent job ${label(id)} of ${where} (${briefly(fault)}); trying again.`);
    await clock.sleep(wait, signal);
  }
}
