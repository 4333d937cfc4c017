// A thread's job left at work by a run that did not wait (`wait: false`): how it stands when a
// later run reads it, and the thread's record once its end is reported. Plain values: the runs
// that report (the thread's next run, a report run) only read the job and write what this says.
import { isTerminal, type AgentJob } from './job.js';
import type { ThreadNote, Waiting } from './ports.js';
import { label } from './untrusted.js';

/** How a waiting job stands: still at work, ended, at work past its run's `timeout`, or unknown to the service. */
export type WaitingEnd =
  | { kind: 'at-work' }
  | { kind: 'ended'; job: AgentJob }
  | { kind: 'overdue'; job: AgentJob }
  | { kind: 'lost' };

/**
 * How the waiting job stands at `now`, from what the service answered (`undefined`: it no longer
 * knows the job). A job still at work past its run's `timeout` is reported as an error, never left
 * pending for ever.
 */
export function waitingEnd(waiting: Waiting, job: AgentJob | undefined, now: number): WaitingEnd {
  if (!job) return { kind: 'lost' };
  if (isTerminal(job.status)) return { kind: 'ended', job };
  return now > waiting.at + waiting.timeout ? { kind: 'overdue', job } : { kind: 'at-work' };
}

/** The thread's record once the waiting job's end is reported: the same, waiting for nothing. */
export function reported(note: ThreadNote): ThreadNote {
  const rest = { ...note };
  delete rest.waiting;
  return rest;
}

/** How a waiting job that no longer waits stands, in the log's words: `Agent job X ${howEnded(end)}`. */
export function howEnded(end: Exclude<WaitingEnd, { kind: 'at-work' }>): string {
  if (end.kind === 'lost') return 'is no longer known to the service';
  if (end.kind === 'overdue') return 'is still at work past its timeout';
  return `is ${label(end.job.status)}`;
}
