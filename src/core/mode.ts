import type { AgentJob } from './job.js';
import { label } from './untrusted.js';

/**
 * Which way the run goes with the job: create one (`prompt`), send a follow-up to one (`prompt`
 * and `jobId`), or only wait for one (`jobId`). What the log, a fault and a cancellation say
 * depends on it, and is written here, once.
 */
export type Mode =
  | { kind: 'create'; projectId: string }
  | { kind: 'follow-up'; jobId: string }
  | { kind: 'wait'; jobId: string }
  /** A re-run: the job an earlier attempt of the same run started, waited for without a message. */
  | { kind: 'resume'; jobId: string };

/** The `mode` output: which way the run went. */
export type ModeOutput = 'created' | 'followed-up' | 'given' | 'resumed' | 'skipped';

export function modeOutput(mode: Mode): ModeOutput {
  switch (mode.kind) {
    case 'create':
      return 'created';
    case 'follow-up':
      return 'followed-up';
    case 'wait':
      return 'given';
    case 'resume':
      return 'resumed';
  }
}

/** Whether the run only waits for a job that exists: nothing is sent to it. */
export function onlyWaits(mode: Mode): mode is Extract<Mode, { kind: 'wait' | 'resume' }> {
  return mode.kind === 'wait' || mode.kind === 'resume';
}

export function modeOf(request: { prompt?: string; jobId?: string; projectId: string }): Mode {
  if (request.jobId === undefined) return { kind: 'create', projectId: request.projectId };
  return request.prompt === undefined
    ? { kind: 'wait', jobId: request.jobId }
    : { kind: 'follow-up', jobId: request.jobId };
}

/** The log line before the request that makes the service act. */
export function sending(mode: Mode, baseUrl: string): string {
  return mode.kind === 'create'
    ? `Creating an agent job in project ${label(mode.projectId)} at ${baseUrl}.`
    : `Sending a follow-up message to agent job ${label(mode.jobId)}.`;
}

/** The log line once the service confirmed it. */
export function sent(mode: Mode, job: AgentJob): string {
  return mode.kind === 'create'
    ? `Created agent job ${label(job.id)} (${label(job.status)}).`
    : `Agent job ${label(job.id)} took the follow-up (${label(job.status)}).`;
}

/**
 * After a fault that leaves it open whether the service acted: the service has no idempotency
 * key, so the only safe move is to say so, and where to look, instead of sending it again.
 */
export function mayHaveActed(mode: Mode): string {
  return mode.kind === 'create'
    ? `the job may have been created anyway, so the action does not send it again (the service has no idempotency key). Look for a new agent job in project ${label(mode.projectId)} before you re-run.`
    : `the message may have reached the job anyway, so the action does not send it again. Check agent job ${label(mode.jobId)} before you re-run.`;
}

/** A cancellation after the request left but before the service confirmed it. */
export function unconfirmed(mode: Mode): string {
  return mode.kind === 'create'
    ? `before the service confirmed the job; a job may have been created in project ${label(mode.projectId)}: look for it before you re-run.`
    : `before the service confirmed the follow-up message; agent job ${label(mode.jobId)} may have taken it.`;
}
