import { ServiceError, type Fault, type ServiceCalls } from '../service/client.js';
import type { Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { ActionFailure, briefly, explain, type FaultContext } from '../service/errors.js';
import type { AgentJob } from '../core/job.js';
import type { Log } from '../core/log.js';
import { onlyWaits, sending, sent, type Mode } from '../core/mode.js';

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
/**
 * Backoff after a 429: 2, 4, 8, 16 and 32 s, then a minute between tries. A reply that does not
 * say when to try again (or says 0, a time gone by, or something absurd: the client drops those)
 * gets the first five, about a minute in all, then the step fails. The quota is hourly: a use ages
 * out up to an hour later, so retrying blind until a long timeout mostly spends the runner's
 * minutes; a reply that says when is waited for instead, as far as the timeout allows, but never
 * sooner than the backoff, so no header can make the retries a burst.
 */
const RATE_LIMIT_FIRST_MS = 2000;
const RATE_LIMIT_LONGEST_STEP_MS = 60_000;
const RATE_LIMIT_BLIND_TRIES = 5;

/**
 * Sends a request that makes the service act (create a job, post a message) under the
 * no-blind-retry rule: it is repeated only when the service certainly did not act on it, that is
 * after a 429 or when the request never left this machine. Anything else that is not a job ends
 * the step with a message that says the service may have acted. Every `ActionFailure` it throws
 * carries the fault that ended it (`fault`), so a caller can tell a refusal (say a 404 or 409 to a
 * follow-up) from a fault after which the service may have acted.
 */
async function sendRetryingOnlyWhenSafe(
  attempt: () => Promise<AgentJob>,
  options: SendOptions,
): Promise<AgentJob> {
  const { clock, deadline, log, context, signal } = options;
  let notSentTries = 0;
  let rateLimitedTries = 0;
  let blindRateLimitedTries = 0;
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
      // `Retry-After`, else the quota's reset header: when the service says, sensibly, its word
      // is waited for.
      const saidMs = fault.retryAfterMs ?? fault.resetAfterMs;
      if (saidMs === undefined && blindRateLimitedTries++ >= RATE_LIMIT_BLIND_TRIES) {
        throw new ActionFailure(explain(fault, context), { fault });
      }
      const backoffMs = Math.min(RATE_LIMIT_LONGEST_STEP_MS, RATE_LIMIT_FIRST_MS * 2 ** rateLimitedTries++);
      waitMs = Math.max(saidMs ?? 0, backoffMs);
      const leftMs = deadline - clock.now();
      if (waitMs > leftMs) throw new ActionFailure(explain(fault, { ...context, leftMs }), { fault });
    } else if (
      fault.kind === 'not-sent' &&
      notSentTries < NOT_SENT_WAITS_MS.length &&
      clock.now() + (NOT_SENT_WAITS_MS[notSentTries] ?? 0) <= deadline
    ) {
      waitMs = NOT_SENT_WAITS_MS[notSentTries++] ?? 0;
    } else {
      throw new ActionFailure(explain(fault, { ...context, tries: notSentTries + 1 }), { fault });
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
  client: ServiceCalls,
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
