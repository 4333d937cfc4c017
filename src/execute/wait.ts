import { REQUEST_TIMEOUT_MS, ServiceError, type Fault } from '../service/client.js';
import type { Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { ActionFailure, briefly, explain, isTransient, type FaultContext } from '../service/errors.js';
import { isKnownStatus, isTerminal, type AgentJob } from '../core/job.js';
import { type Log } from '../core/log.js';
import { label } from '../core/untrusted.js';
import { PollSchedule } from './schedule.js';

export interface WaitOptions {
  clock: Clock;
  /** Clock time at which waiting stops with a timeout. */
  deadline: number;
  pollIntervalMs: number;
  /**
   * Clock time at which the service answered the create: 404s in the next 30 s are forgiven.
   * `-Infinity` for a job that existed before this step.
   */
  createdAt: number;
  log: Log;
  context: FaultContext;
  signal?: AbortSignal;
  random?: () => number;
  /**
   * After a follow-up: until this clock time (or the deadline, if sooner), a terminal status counts
   * only once the job has been seen `active` since the message (its reply to the message
   * included). The service takes messages asynchronously, so right after one it may still report
   * the previous run's `completed` (and its pull request).
   */
  settledAfter?: number;
  /** Called with every job read, so the last one seen is known even if waiting is interrupted. */
  onJob?: (job: AgentJob) => void;
}

export interface WaitResult {
  /** The last job read; absent only if the job was never read (waiting on a `jobId`). */
  job?: AgentJob;
  timedOut: boolean;
}

export type ReadJob = (call: {
  timeoutMs: number;
  totalMs?: number;
  signal?: AbortSignal;
}) => Promise<AgentJob>;

/** How often a job still at work is said to be, whatever the polls' spacing: a silent step looks hung. */
const PROGRESS_EVERY_MS = 120_000;

/**
 * Polls until the job reaches a terminal status or the deadline passes (docs/design.md §3.3, §3.4). A job
 * the service already sent is first polled `pollInterval` later; one known only by id at once.
 */
export async function waitForJob(
  read: ReadJob,
  id: string,
  first: AgentJob | undefined,
  options: WaitOptions,
): Promise<WaitResult> {
  const { clock, deadline, log, signal } = options;
  const schedule = new PollSchedule(options.pollIntervalMs, options.random);
  const warnedStatuses = new Set<string>();
  const context = { ...options.context, jobId: id };
  const name = label(id);
  let job = first;
  let nextWait = job ? schedule.next() : 0;
  // A follow-up's own reply counts: `active` there means the service took the message and works
  // on it, so the next `completed` is this run's, not the previous one's.
  let seenActive = first !== undefined && !isTerminal(first.status);
  // The grace never outlasts the timeout: a job that still reads as finished when time is up is
  // reported as it reads (a finished job is done, not timed out).
  const settleBy = options.settledAfter === undefined ? undefined : Math.min(options.settledAfter, deadline);
  const settled = () => seenActive || settleBy === undefined || clock.now() >= settleBy;
  const waitingSince = clock.now();
  let nextProgress = waitingSince + PROGRESS_EVERY_MS;
  /**
   * Sleeps `ms`, saying at every two-minute mark that the job is still at work: a timer beside the
   * polls, since with the growing interval a poll may not land between two marks.
   */
  const pause = async (ms: number) => {
    const until = clock.now() + ms;
    while (nextProgress < until) {
      await clock.sleep(Math.max(0, nextProgress - clock.now()), signal);
      if (job && !isTerminal(job.status)) {
        log.info(
          `Agent job ${name} is still ${label(job.status)} after ${formatDuration(clock.now() - waitingSince)}; checking again in ${formatDuration(until - clock.now())}.`,
        );
      }
      nextProgress += PROGRESS_EVERY_MS;
    }
    if (until > clock.now()) await clock.sleep(until - clock.now(), signal);
  };

  for (;;) {
    if (job && isTerminal(job.status)) {
      if (settled()) {
        if (!seenActive && options.settledAfter !== undefined && clock.now() < options.settledAfter) {
          log.info(
            `Agent job ${name} still reads ${label(job.status)} at the timeout and was not seen at work on the follow-up: this may be how it ended before the message.`,
          );
        }
        return { job, timedOut: false };
      }
      log.debug(
        `Agent job ${name} still reads ${label(job.status)}; the follow-up may not have started yet.`,
      );
    }
    const left = deadline - clock.now();
    if (left <= 0) return { job, timedOut: true };
    // The last wait is cut so the poll at the deadline is the last one.
    if (nextWait > 0) await pause(Math.min(nextWait, left));

    let fault: Fault;
    try {
      // Near the deadline a poll gets only the time left (at least 1 s), connecting included.
      const timeoutMs = Math.min(REQUEST_TIMEOUT_MS, Math.max(1000, deadline - clock.now()));
      const latest = await read({
        timeoutMs,
        totalMs: timeoutMs < REQUEST_TIMEOUT_MS ? timeoutMs : undefined,
        signal,
      });
      log.debug(`Polled agent job ${name}: status ${label(latest.status)}.`);
      // A change is said as it happens; the end is said once, by the step (its last line or error).
      if (latest.status !== job?.status && !isTerminal(latest.status))
        log.info(`Agent job ${name} is ${job ? 'now ' : ''}${label(latest.status)}.`);
      if (!isKnownStatus(latest.status) && !warnedStatuses.has(latest.status)) {
        warnedStatuses.add(latest.status);
        log.warning(
          `Agent job ${name} reports the status ${label(latest.status)}, which this action does not know; it is treated as still running.`,
        );
      }
      if (!isTerminal(latest.status)) seenActive = true;
      job = latest;
      options.onJob?.(job);
      nextWait = schedule.next();
      continue;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      fault = error.fault;
    }

    if (!isTransient(fault, clock.now() - options.createdAt))
      throw new ActionFailure(explain(fault, context));
    // A stated wait is a floor, never a shortcut: the schedule goes on growing under it, so a
    // `Retry-After` too short to mean anything cannot make the polls a burst (and the client drops
    // a 0, a time gone by or an absurd one).
    nextWait = Math.max(schedule.next(), fault.kind === 'http' ? (fault.retryAfterMs ?? 0) : 0);
    const until = Math.min(nextWait, Math.max(0, deadline - clock.now()));
    log.warning(
      `Could not read agent job ${name}: ${briefly(fault)}; trying again in ${formatDuration(until)}.`,
    );
  }
}

/** A single read, for a step that does not wait: it has no second chance, so every fault is final. */
export async function readJobOnce(
  read: ReadJob,
  context: FaultContext,
  signal?: AbortSignal,
): Promise<AgentJob> {
  try {
    return await read({ timeoutMs: REQUEST_TIMEOUT_MS, signal });
  } catch (error) {
    throw error instanceof ServiceError ? new ActionFailure(explain(error.fault, context)) : error;
  }
}
