import type { JobStatus } from '../store/schema.js';

/**
 * The job state machine of DESIGN.md §1, in one place. Every status change in the code goes
 * through `transition`, so a refused change is refused the same way everywhere.
 *
 *   active ──► completed ──(message)──► active
 *      │  └──► failed ────(message)──► active
 *      └──────────────(archive)───────► archived   (from any state; terminal)
 */
export type JobEvent =
  /** A follow-up prompt: the job runs again. */
  | 'message'
  /** The caller archives the job. Archiving an archived job is allowed and changes nothing. */
  | 'archive'
  /** The job's last queued run ended well. */
  | 'run_succeeded'
  /** The job's last queued run ended with an unrecoverable error. */
  | 'run_failed';

export const JOB_STATUSES: readonly JobStatus[] = ['active', 'completed', 'archived', 'failed'];
export const JOB_EVENTS: readonly JobEvent[] = ['message', 'archive', 'run_succeeded', 'run_failed'];

export type TransitionResult = { ok: true; status: JobStatus } | { ok: false; reason: string };

const TABLE: Record<JobStatus, Partial<Record<JobEvent, JobStatus>>> = {
  active: { message: 'active', archive: 'archived', run_succeeded: 'completed', run_failed: 'failed' },
  completed: { message: 'active', archive: 'archived' },
  failed: { message: 'active', archive: 'archived' },
  archived: { archive: 'archived' },
};

export function transition(from: JobStatus, event: JobEvent): TransitionResult {
  const to = TABLE[from][event];
  if (to !== undefined) return { ok: true, status: to };
  if (from === 'archived') return { ok: false, reason: 'The job is archived; archived jobs cannot change.' };
  return {
    ok: false,
    reason: `A ${from} job has no running work to ${event === 'run_failed' ? 'fail' : 'complete'}.`,
  };
}
