import { Cancelled } from './cancel.js';
import type { Clock } from './clock.js';
import type { Connection } from './dispatcher.js';
import { formatDuration } from './duration.js';
import { ActionFailure } from './errors.js';
import type { GitHubReport, Outcome } from './github/index.js';
import type { Inputs } from './inputs.js';
import type { AgentJob } from './job.js';
import { describeThrown, label } from './log.js';
import type { Started } from './start.js';
import type { WaitResult } from './wait.js';

/**
 * One run of the step: what it has learned of the job so far, and what it must release. Each
 * stage of the work records here what it learned, so that whatever ends the run (a fault, a
 * cancellation, the job's own end) the outputs, the summary and the step's error are written from
 * the same facts. `failure` is the one place those facts become the step's error.
 */
export class JobRun {
  readonly startedAt: number;
  /** Absent only when the inputs were refused. */
  inputs?: Inputs;
  /** The job's id, as soon as there is one: named by the `jobId` input, or confirmed by a create. */
  id?: string;
  /** The last job object the service sent. */
  job?: AgentJob;
  timedOut = false;
  /** Set once the create or follow-up may have left: before that, a failure sent nothing. */
  sending = false;
  /** The GitHub side, loading or loaded, when the workflow asked for it. */
  github?: Promise<GitHubReport | undefined>;
  /** Kept-alive sockets would hold the process open after the work is done: closed at the end. */
  connection?: Connection;
  #fault?: string;
  #ended = false;
  #stoppedAt?: number;

  constructor(
    readonly clock: Clock,
    readonly signal: AbortSignal,
    startedAt = clock.now(),
  ) {
    this.startedAt = startedAt;
  }

  /** How long the step has run; fixed by `stopClock`, so the summary and the comment agree. */
  get waitedMs(): number {
    return (this.#stoppedAt ?? this.clock.now()) - this.startedAt;
  }

  stopClock(): void {
    this.#stoppedAt ??= this.clock.now();
  }

  /** The create or follow-up is about to leave (or, waiting on an id, the id is known). */
  sendingFor(jobId: string | undefined): void {
    this.id = jobId;
    this.sending = true;
  }

  started(started: Started): void {
    this.id = started.id;
    this.job = started.job;
  }

  saw(job: AgentJob): void {
    this.job = job;
  }

  /** The work is over: the job ended, timed out, or goes on without this step (`wait: false`). */
  ended(result: WaitResult): void {
    this.job = result.job;
    this.timedOut = result.timedOut;
    this.#ended = true;
  }

  /**
   * Records what ended the work. The first failure is the one the step reports: a fault after the
   * job's own end (say, outputs that cannot be written) does not hide a job that failed.
   */
  fail(error: unknown): string {
    return (this.#fault ??= this.verdict() ?? this.describe(error));
  }

  /** The step's error, or `undefined` for success. */
  get failure(): string | undefined {
    return this.#fault ?? this.verdict();
  }

  /** How the step ended, for the GitHub side's last word. */
  outcome(): Outcome | undefined {
    if (!this.id) return undefined;
    const { id: jobId, job, failure, timedOut, waitedMs } = this;
    return { jobId, job, failure, timedOut, waitedMs };
  }

  /**
   * What the job's end means for the step. Only once the work is over: right after a follow-up,
   * a job read while waiting may still carry the previous run's `failed`.
   */
  private verdict(): string | undefined {
    if (!this.#ended) return undefined;
    const { id, job } = this;
    if (this.timedOut && id && this.inputs) {
      const last = job ? `last status: ${label(job.status)}` : 'it could not be read';
      return `Agent job ${label(id)} did not finish within ${formatDuration(this.inputs.timeoutMs)} (${last}); it goes on in the service. Raise the timeout input to wait longer.`;
    }
    if (job?.status === 'failed') return `Agent job ${label(job.id)} failed.`;
    if (job?.status === 'archived') return `Agent job ${label(job.id)} was archived before it completed.`;
    return undefined;
  }

  private describe(error: unknown): string {
    if (error instanceof Cancelled) return this.cancelled(error);
    if (error instanceof ActionFailure) return error.message;
    return `The action failed unexpectedly: ${describeThrown(error)}. Re-run the job with debug logging enabled for details.`;
  }

  /** What a cancellation leaves behind depends on how far the request got. */
  private cancelled(error: Cancelled): string {
    const cancelled = `The step was cancelled (${error.signalName})`;
    const { inputs, id, job } = this;
    if (!this.sending) return `${cancelled} before anything was sent to the service.`;
    if (id && (job || !inputs?.prompt)) {
      const last = job ? ` (last status: ${label(job.status)})` : '';
      return `${cancelled} while waiting; agent job ${label(id)} goes on in the service${last}.`;
    }
    if (inputs?.jobId) {
      return `${cancelled} before the service confirmed the follow-up message; agent job ${label(inputs.jobId)} may have taken it.`;
    }
    return `${cancelled} before the service confirmed the job; a job may have been created in project ${label(inputs?.projectId ?? '')}: look for it before you re-run.`;
  }
}
