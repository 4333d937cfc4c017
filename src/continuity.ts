import { ServiceError, type AgentClient } from './client.js';
import { briefly } from './errors.js';
import type { DocsPullState, Recall } from './github/report.js';
import { isTerminal, type AgentJob } from './job.js';
import { type Log } from './log.js';
import { label } from './untrusted.js';
import { modeOf, type Mode } from './mode.js';

/** Which way the run goes with the job, and what a follow-up's context starts from. */
export interface Plan {
  mode: Mode;
  /** The head commit the thread's job last saw: a follow-up's context is what changed since. */
  since?: string;
}

/** What GitHub remembers, and what it can tell of a docs pull request: the GitHub side's part. */
export interface Memory {
  recall(): Promise<Recall>;
  docsPullState(prLink: string): Promise<DocsPullState>;
}

export interface PlanRequest {
  prompt?: string;
  jobId?: string;
  projectId: string;
  thread: boolean;
  /** This run, as the runner names it: `GITHUB_RUN_ID` and `GITHUB_RUN_ATTEMPT`. */
  runId: number;
  attempt: number;
}

/**
 * Before anything is sent: a re-run resumes the job its earlier attempt started; on a thread, a
 * later run follows the thread's job up while that job is active or its docs pull request is
 * open; anything else creates a job. A job given by `jobId` is the workflow's own choice.
 */
export async function planJob(
  request: PlanRequest,
  memory: Memory | undefined,
  client: Pick<AgentClient, 'getJob'>,
  log: Log,
): Promise<Plan> {
  const given = modeOf(request);
  if (request.jobId !== undefined) return { mode: given };
  if (!memory) {
    if (request.attempt > 1 && given.kind === 'create') {
      log.info(
        `Attempt ${request.attempt} of this run: nothing on GitHub can tell which job an earlier attempt may have started, so this attempt creates its own. With status: true (or comment: true), a re-run resumes it.`,
      );
    }
    return { mode: given };
  }
  const recall = await memory.recall();

  if (request.attempt > 1) {
    const earlier =
      recall.note?.run === request.runId
        ? recall.note.job
        : recall.status?.run === request.runId
          ? recall.status.job
          : undefined;
    if (earlier) {
      log.info(
        `Attempt ${request.attempt} of this run: resuming agent job ${label(earlier)}, which an earlier attempt started, instead of starting another.`,
      );
      return { mode: { kind: 'resume', jobId: earlier } };
    }
    log.info(
      `Attempt ${request.attempt} of this run: no job of an earlier attempt was found on GitHub, so this attempt goes on as a new run.`,
    );
  }

  const threadJob = request.thread ? (recall.note?.job ?? recall.branch?.job) : undefined;
  if (!threadJob || request.prompt === undefined) return { mode: given };
  const where = recall.note ? 'the thread' : 'the branch';
  const job = await readThreadJob(threadJob, where, client, log);
  const followUp: Plan = {
    mode: { kind: 'follow-up', jobId: threadJob },
    ...(recall.note?.head ? { since: recall.note.head } : {}),
  };
  if (!job) return { mode: given };
  if (!isTerminal(job.status)) {
    log.info(`Agent job ${label(threadJob)} of ${where} is ${label(job.status)}: this run follows it up.`);
    return followUp;
  }
  if (job.status !== 'completed') {
    log.info(
      `Agent job ${label(threadJob)} of ${where} ${job.status === 'failed' ? 'failed' : 'was archived'}: a new job is started.`,
    );
    return { mode: given };
  }
  if (!job.prLink) {
    log.info(
      `Agent job ${label(threadJob)} of ${where} completed without a docs pull request: a new job is started.`,
    );
    return { mode: given };
  }
  const state = await memory.docsPullState(job.prLink);
  if (state === 'open') {
    log.info(
      `The docs pull request of ${where} is still open: this run follows agent job ${label(threadJob)} up.`,
    );
    return followUp;
  }
  if (state === 'closed')
    log.info(`The docs pull request of ${where} was merged or closed: a new job is started.`);
  return { mode: given };
}

/** The thread's job as the service knows it; `undefined` (and a new job) when it does not. */
async function readThreadJob(
  id: string,
  where: string,
  client: Pick<AgentClient, 'getJob'>,
  log: Log,
): Promise<AgentJob | undefined> {
  try {
    return await client.getJob(id);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.fault.kind === 'http' && error.fault.status === 404) {
      log.info(`Agent job ${label(id)} of ${where} is no longer known to the service: a new job is started.`);
    } else {
      log.warning(
        `Could not read agent job ${label(id)} of ${where} (${briefly(error.fault)}): a new job is started.`,
      );
    }
    return undefined;
  }
}
