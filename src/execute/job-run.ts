import { Cancelled } from './cancel.js';
import type { Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { ActionFailure } from '../service/errors.js';
import type { Memory, Outcome } from '../core/ports.js';
import type { Inputs } from '../decide/inputs.js';
import type { AgentJob } from '../core/job.js';
import { describeThrown } from '../core/log.js';
import { label } from '../core/untrusted.js';
import { onlyWaits, unconfirmed, type Mode } from '../core/mode.js';
import type { Started } from './start.js';
import type { WaitResult } from './wait.js';

/**
 * One run of the step: what it has learned of the job so far. Each stage of the work tells it what
 * it learned, through one method a stage, so that whatever ends the run (a fault, a cancellation,
 * the job's own end) the outputs, the summary and the step's error are written from the same
 * facts. `failure` is the one place those facts become the step's error.
 *
 * The stages, in order: `accepted` (the inputs are valid: the verdict's words name their timeout
 * and project), `sendingFor` (the create or follow-up may leave from now on), `started` (the
 * service confirmed it, or the job was given by id), `saw` (each job read while waiting), `ended`
 * (the work is over). Any of them may be the last. What the steps hand each other (the inputs
 * accepted, a skip, the `jobId` output written, what was started on GitHub) are values in
 * run(), not this record's.
 */
export class JobRun {
  readonly startedAt: number;
  #inputs?: Inputs;
  #id?: string;
  #job?: AgentJob;
  #timedOut = false;
  #mode?: Mode;
  #fault?: string;
  #ended = false;
  #stoppedAt?: number;
  #confirmed = false;
  #replaced?: { jobId: string; prLink?: string | null };
  #uses = 0;

  constructor(
    readonly clock: Clock,
    readonly signal: AbortSignal,
    startedAt = clock.now(),
  ) {
    this.startedAt = startedAt;
  }

  /** The job's id, as soon as there is one: named by the `jobId` input, or confirmed by a create. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The last job object the service sent. */
  get job(): AgentJob | undefined {
    return this.#job;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** How long the step has run; fixed by `stopClock`, so the summary and the comment agree. */
  get waitedMs(): number {
    return (this.#stoppedAt ?? this.clock.now()) - this.startedAt;
  }

  stopClock(): void {
    this.#stoppedAt ??= this.clock.now();
  }

  accepted(inputs: Inputs): void {
    this.#inputs = inputs;
  }

  /**
   * The create or follow-up is about to leave (or, waiting on an id, the id is known). A job id
   * known here is not a confirmed one: only a job that exists and is only waited for is.
   */
  sendingFor(mode: Mode): void {
    this.#mode = mode;
    this.#id = mode.kind === 'create' ? undefined : mode.jobId;
    this.#confirmed = onlyWaits(mode);
  }

  /** A follow-up the service refused outright: its thread goes to the job created next. */
  replacing(jobId: string, prLink: string | null | undefined): void {
    this.#replaced = { jobId, prLink };
  }

  /** Which way the run went with the job, once it is about to go. */
  get mode(): Mode | undefined {
    return this.#mode;
  }

  /** The service accepted the create or the message (or the job exists and is only waited for). */
  started(started: Started): void {
    // A create or follow-up the service accepted spends one of the quota's uses; one refused
    // (or never answered) never gets here, and waiting on a job spends none.
    if (this.#mode && !onlyWaits(this.#mode)) this.#uses = 1;
    this.#id = started.id;
    this.#job = started.job;
    this.#confirmed = true;
  }

  /** The quota uses this run spent: the creates and follow-ups the service accepted. */
  get uses(): number {
    return this.#uses;
  }

  saw(job: AgentJob): void {
    this.#job = job;
  }

  /** The work is over: the job ended, timed out, or goes on without this step (`wait: false`). */
  ended(result: WaitResult): void {
    this.#job = result.job;
    this.#timedOut = result.timedOut;
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

  /** How the step ended, for the GitHub side's last word, with what was read before anything was sent. */
  outcome(memory: Memory): Outcome {
    const { job, failure, timedOut, waitedMs } = this;
    return {
      ...(this.#id ? { jobId: this.#id } : {}),
      job,
      confirmed: this.#confirmed,
      failure,
      timedOut,
      waitedMs,
      memory,
      ...(this.#replaced ? { replaced: this.#replaced } : {}),
      uses: this.#uses,
      endedAt: this.#stoppedAt ?? this.clock.now(),
    };
  }

  /**
   * What the job's end means for the step. Only once the work is over: right after a follow-up,
   * a job read while waiting may still carry the previous run's `failed`.
   */
  private verdict(): string | undefined {
    if (!this.#ended) return undefined;
    const id = this.#id;
    const job = this.#job;
    if (this.#timedOut && id && this.#inputs) {
      const last = job ? `last status: ${label(job.status)}` : 'it could not be read';
      return `Agent job ${label(id)} did not finish within ${formatDuration(this.#inputs.timeout)} (${last}); it goes on in the service. Raise the timeout input to wait longer (and the job's timeout-minutes above it), or wait for it in a later step with jobId: ${label(id)}.`;
    }
    const project = this.#inputs ? ` of project ${label(this.#inputs.projectId)}` : '';
    if (job?.status === 'failed')
      return `Agent job ${label(job.id)} failed. Its record in the service's dashboard${project} says why; re-run the workflow to start a new job, or send it a follow-up with jobId: ${label(job.id)} and a prompt that says what to change.`;
    if (job?.status === 'archived')
      return `Agent job ${label(job.id)} was archived before it completed. Re-run the workflow to start a new job; the service's dashboard${project} shows who or what archived it.`;
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
    const mode = this.#mode;
    const id = this.#id;
    const job = this.#job;
    if (!mode) return `${cancelled} before anything was sent to the service.`;
    if (id && (job || onlyWaits(mode))) {
      const last = job ? ` (last status: ${label(job.status)})` : '';
      return `${cancelled} while waiting; agent job ${label(id)} goes on in the service${last}.`;
    }
    return `${cancelled} ${unconfirmed(mode)}`;
  }
}
