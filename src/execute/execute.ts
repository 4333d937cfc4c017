// The second of the run's three steps: send what was decided (create, follow up, or nothing when
// only waiting), then wait for the job. What it learns of the job goes into the run's one record
// (JobRun); what the report needs besides (the `jobId` output written, what was started on
// GitHub) it returns as a value. Nothing here writes to GitHub but the "job exists" moment.
import type { ServiceCalls } from '../service/client.js';
import type { Decision } from '../decide/decide.js';
import { ActionFailure, briefly, type FaultContext } from '../service/errors.js';
import type { Inputs } from '../decide/inputs.js';
import { isTerminal, type AgentJob } from '../core/job.js';
import type { JobRun } from './job-run.js';
import type { Log } from '../core/log.js';
import { modeOutput, type Mode } from '../core/mode.js';
import { setOutput } from '../report/outputs.js';
import { escapeUnsafe, label, printableUrl } from '../core/untrusted.js';
import type { ExecuteWrites, GitHubStarted } from '../core/ports.js';
import { startJob, type Started } from './start.js';
import { readJobOnce, waitForJob, type ReadJob } from './wait.js';

/** Answers to a message that say nothing was accepted: the service takes no message for that job. */
const REFUSED_OUTRIGHT = new Set([400, 404, 409, 410, 422]);

export interface ExecuteDeps {
  client: ServiceCalls;
  log: Log;
  /** The GitHub side, when it was asked for: told once the job exists. */
  github?: Promise<ExecuteWrites | undefined>;
  context: FaultContext;
  /** `false` for another merged pull request's thread (a push of several merges): the outputs are not its. */
  outputs?: boolean;
}

/** What execute hands the report, as far as it got. */
export interface Executed {
  /** The job id the `jobId` output was given as soon as the service confirmed it. */
  jobId?: string;
  /** What was started on GitHub once the job existed: the report's last writes wait for it. */
  github?: GitHubStarted;
  /** What ended the work before its end (a fault, a cancellation): the step's error is made from it. */
  failed?: { error: unknown };
}

/** Sends and waits; never throws: a fault ends the work, and is handed on in `failed`. */
export async function execute(
  decision: Extract<Decision, { kind: 'go' }>,
  inputs: Inputs,
  step: JobRun,
  deps: ExecuteDeps,
): Promise<Executed> {
  let jobId: string | undefined;
  let github: GitHubStarted | undefined;
  try {
    const started = await sendDecided(decision, inputs, step, deps);
    step.started(started);
    jobId = started.id;
    if (deps.outputs !== false) {
      setOutput('jobId', escapeUnsafe(started.id));
      setOutput('mode', modeOutput(step.mode ?? decision.mode));
    }
    // Without waiting, the comment is written once, at the end.
    if (inputs.wait)
      github = (await deps.github)?.started(started.id, started.job, decision.memory, step.uses);
    await follow(started, inputs, step, deps);
    return { jobId, ...(github ? { github } : {}) };
  } catch (error) {
    return { ...(jobId ? { jobId } : {}), ...(github ? { github } : {}), failed: { error } };
  }
}

/** The create or follow-up (or nothing, when only waiting); a follow-up refused outright gives way to a create. */
async function sendDecided(
  decision: Extract<Decision, { kind: 'go' }>,
  inputs: Inputs,
  step: JobRun,
  deps: ExecuteDeps,
): Promise<Started> {
  const { client, log, context } = deps;
  const { signal, clock } = step;
  const deadline = step.startedAt + inputs.timeout;
  const send = (mode: Mode, prompt: string | undefined): Promise<Started> => {
    step.sendingFor(mode);
    return startJob(client, mode, prompt, { clock, deadline, log, context, signal });
  };

  let started: Started;
  try {
    started = await send(decision.mode, decision.prompt);
  } catch (error) {
    const { replacement } = decision;
    if (!replacement || !refusedOutright(error)) throw error;
    // The service may refuse messages to a finished job: the thread goes on in a new job, which
    // needs the whole context (it never saw the pull request). Delivery unknown never gets here.
    // What becomes of the earlier docs pull request is the report's to say (supersede.ts): it
    // depends on the thread's record, the tokens, the new job's own docs PR and who committed.
    const earlier = replacement.prLink
      ? ` The run's end says what becomes of the docs pull request ${printableUrl(replacement.prLink)} that job ${label(replacement.jobId)} named.`
      : '';
    log.info(
      `The service no longer takes messages for agent job ${label(replacement.jobId)} (it answered ${error.fault ? briefly(error.fault) : error.message}); a new job continues the thread.${earlier}`,
    );
    step.replacing(replacement.jobId, replacement.prLink);
    started = await send({ kind: 'create', projectId: inputs.projectId }, await replacement.prompt());
  }
  return started;
}

/** Waits for the job (or, with `wait: false`, reads it once), and says how it ended. */
async function follow(started: Started, inputs: Inputs, step: JobRun, deps: ExecuteDeps): Promise<void> {
  const { client, log, context } = deps;
  const { signal, clock } = step;
  const deadline = step.startedAt + inputs.timeout;
  const read: ReadJob = (call) => client.getJob(started.id, call);
  const getContext: FaultContext = { ...context, operation: 'get', jobId: started.id };
  if (!inputs.wait) {
    // Without a prompt there is nothing created to report: read the job once.
    const job = started.job ?? (await readJobOnce(read, getContext, signal));
    step.ended({ job, timedOut: false });
  } else {
    step.ended(
      await waitForJob(read, started.id, started.job, {
        clock,
        deadline,
        pollIntervalMs: inputs.pollInterval,
        createdAt: started.createdAt,
        settledAfter: started.settledAfter,
        log,
        context: getContext,
        signal,
        onJob: (latest) => step.saw(latest),
      }),
    );
  }
  if (!step.timedOut && step.job) sayHowItEnded(step.job, inputs, log);
}

/** A follow-up the service answered with a refusal: nothing of it was accepted. */
function refusedOutright(error: unknown): error is ActionFailure {
  const fault = error instanceof ActionFailure ? error.fault : undefined;
  return fault?.kind === 'http' && REFUSED_OUTRIGHT.has(fault.status);
}

/** The log's last word on a job that did not fail the step (a failure is the step's error). */
function sayHowItEnded(job: AgentJob, inputs: Inputs, log: Log): void {
  if (job.status === 'completed') {
    log.info(
      job.prLink
        ? `Agent job ${label(job.id)} completed: ${printableUrl(job.prLink)}`
        : `Agent job ${label(job.id)} completed without a pull request (no files changed).`,
    );
  } else if (!isTerminal(job.status) && !inputs.wait) {
    // Only reachable with `wait: false`: the job goes on without this step.
    log.info(`Agent job ${label(job.id)} goes on in the service (wait is false).`);
  }
}
