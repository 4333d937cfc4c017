import { ServiceError, type AgentClient, type Fault } from './client.js';
import type { Clock } from './clock.js';
import { formatDuration } from './duration.js';
import { ActionFailure, briefly, explain, type FaultContext } from './errors.js';
import type { AgentJob } from './job.js';
import type { Log } from './log.js';
import { onlyWaits, sending, sent, type Mode } from './mode.js';

export interface SendOptions {
  clock: Clock;
  /** Clock time by which the whole step must be done; 429 retries stop there. */
  deadline: number;
  log: Log;
  context: FaultContext;
  signal?: AbortSignal;
}

/** Waits between tries when nothing reached the service (docs/design.md §3.4): 1 s, 2 s, 4 s. */
const NOT_SENT_WAITS_MS = [1000, 2000, 4000];
/** Backoff for a 429 without `Retry-After`: 2 s, 4 s, 8 s … */
const RATE_LIMIT_FIRST_MS = 2000;

/**
 * Sends a request that makes the service act (create a job, post a message) under the
 * no-blind-retry rule: it is repeated only when the service certainly did not act on it, that is
 * after a 429 or when the request never left this machine. Anything else that is not a job ends
 * the step with a message that says the service may have acted.
 */
async function sendRetryingOnlyWhenSafe(
  attempt: () => Promise<AgentJob>,
  options: SendOptions,
): Promise<AgentJob> {
  const { clock, deadline, log, context, signal } = options;
  let notSentTries = 0;
  let rateLimitedTries = 0;
  for (;;) {
    let fault: Fault;
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      fault = error.fault;
    }

    let waitMs: number;
    if (fault.kind === 'http' && fault.status === 429) {
      waitMs = fault.retryAfterMs ?? RATE_LIMIT_FIRST_MS * 2 ** rateLimitedTries;
      rateLimitedTries++;
      if (clock.now() + waitMs > deadline) throw new ActionFailure(explain(fault, context));
    } else if (
      fault.kind === 'not-sent' &&
      notSentTries < NOT_SENT_WAITS_MS.length &&
      clock.now() + (NOT_SENT_WAITS_MS[notSentTries] ?? 0) <= deadline
    ) {
      waitMs = NOT_SENT_WAITS_MS[notSentTries++] ?? 0;
    } else {
      throw new ActionFailure(explain(fault, { ...context, tries: notSentTries + 1 }));
    }
    log.warning(
      `${capitalize(briefly(fault))} for ${describe(context)}; trying again in ${formatDuration(waitMs)}.`,
    );
    await clock.sleep(waitMs, signal);
  }
}

export interface Started {
  /** The job as the service last sent it; absent when only waiting on a `jobId`. */
  job?: AgentJob;
  id: string;
  /** Clock time the service confirmed a new job; `-Infinity` for a job that existed before. */
  createdAt: number;
  /** Set after a follow-up: see `WaitOptions.settledAfter`. */
  settledAfter?: number;
}

/** How long a terminal status right after a follow-up may be the previous run's. */
const FOLLOW_UP_SETTLE_MS = 30_000;

/**
 * The first step of the three modes: create a job (`prompt`), send a follow-up to one
 * (`prompt` and `jobId`), or nothing yet when only waiting on one (`jobId`).
 */
export async function startJob(
  client: AgentClient,
  mode: Mode,
  prompt: string | undefined,
  options: SendOptions,
): Promise<Started> {
  const { log, signal, clock } = options;
  if (onlyWaits(mode)) return { id: mode.jobId, createdAt: -Infinity };
  log.info(sending(mode, options.context.baseUrl));
  if (mode.kind === 'create') {
    const job = await sendRetryingOnlyWhenSafe(() => client.createJob(prompt ?? '', { signal }), options);
    log.info(sent(mode, job));
    return { job, id: job.id, createdAt: clock.now() };
  }
  const context = { ...options.context, operation: 'message' as const, jobId: mode.jobId };
  const job = await sendRetryingOnlyWhenSafe(() => client.sendMessage(mode.jobId, prompt ?? '', { signal }), {
    ...options,
    context,
  });
  log.info(sent(mode, job));
  return { job, id: mode.jobId, createdAt: -Infinity, settledAfter: clock.now() + FOLLOW_UP_SETTLE_MS };
}

function describe(context: FaultContext): string {
  return context.operation === 'create' ? 'the create request' : 'the follow-up message';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
