import type { Fault, Operation } from './client.js';
import { label, quote } from '../core/untrusted.js';
import { mayHaveActed, type Mode } from '../core/mode.js';

/**
 * A failure whose message is already the one line the workflow author reads. `fault`, when set, is
 * the service's answer (or the failure to get one) that caused it, for callers that must tell one
 * kind of refusal from another without reading the message.
 */
export class ActionFailure extends Error {
  override name = 'ActionFailure';
  readonly fault?: Fault;

  constructor(message: string, options: ErrorOptions & { fault?: Fault } = {}) {
    const { fault, ...errorOptions } = options;
    super(message, errorOptions);
    if (fault !== undefined) this.fault = fault;
  }
}

export interface FaultContext {
  operation: Operation;
  baseUrl: string;
  projectId: string;
  jobId?: string;
  proxy?: string;
  /** How many times a request that never reached the service was tried. */
  tries?: number;
  /** Time left before the step's timeout, when a 429's wait did not fit in it. */
  leftMs?: number;
}

const TO: Record<Operation, string> = {
  create: 'the request to create the job',
  get: 'the request for the job',
  message: 'the follow-up message',
};

/** A few words for a log line: what came back. */
export function briefly(fault: Fault): string {
  switch (fault.kind) {
    case 'http':
      return `HTTP ${fault.status}${fault.serviceMessage ? ` ${quote(fault.serviceMessage, 120)}` : ''}`;
    case 'not-sent':
      return `no connection (${fault.code})`;
    case 'no-answer':
      return `no complete answer (${fault.code})`;
    case 'not-a-job':
      return `HTTP ${fault.status} with a body that is not a job`;
    case 'other-job':
      return `HTTP ${fault.status} with another job (${label(fault.id)})`;
    case 'tls':
      return `TLS error (${fault.code})`;
  }
}

/** The one-line error for a fault that ends the step (docs/design.md §3.4, §5). */
export function explain(fault: Fault, context: FaultContext): string {
  const host = new URL(context.baseUrl).host;
  const said =
    fault.kind === 'http' && fault.serviceMessage ? ` The service said: ${quote(fault.serviceMessage)}.` : '';
  const job = context.jobId ? `Agent job ${label(context.jobId)}` : 'The job';

  switch (fault.kind) {
    case 'http':
      switch (fault.status) {
        case 400:
          return `The service rejected ${TO[context.operation]} as invalid (400).${said} Check the prompt and projectId inputs.`;
        case 401:
          return `The service rejected the API key (401): it is missing, mistyped, expired or revoked. Put a valid admin API key in the secret passed as apiKey.${said}`;
        case 403:
          if (context.operation === 'get') {
            return `The API key may not read this job (403): this runner's IP address may not be on the key's allowlist. Allow the runner's address, or use a key without an allowlist.${said}`;
          }
          return `The API key is not allowed to do this (403): it lacks the write scope, or this runner's IP address is not on the key's allowlist. Use an admin key with write access, or allow the runner's address.${said}`;
        case 404:
          if (context.operation === 'create') {
            return `No project ${label(context.projectId)} at ${context.baseUrl} (404). Check the projectId and baseUrl inputs.${said}`;
          }
          return `${job} was not found in project ${label(context.projectId)} at ${context.baseUrl} (404).${said}`;
        case 429:
          if (context.operation !== 'get') return rateLimited(fault, said, context.leftMs);
      }
      if (fault.status >= 500 && context.operation !== 'get') return ambiguous(fault, context, host);
      if (fault.status >= 300 && fault.status < 400) {
        return `The service answered ${TO[context.operation]} with a redirect (${fault.status}); set baseUrl to the address the API is served at.`;
      }
      return `The service answered ${fault.status} to ${TO[context.operation]}.${said}`;
    case 'not-sent': {
      const via = context.proxy ? ` through the proxy ${context.proxy}` : '';
      const what =
        fault.code === 'ENOTFOUND' || fault.code === 'EAI_AGAIN'
          ? `resolve the host ${new URL(context.baseUrl).hostname}`
          : `connect to ${host}${via}`;
      const tries = context.tries && context.tries > 1 ? ` after ${context.tries} tries` : '';
      return `Could not ${what} (${fault.code})${tries}. Check the baseUrl input and the runner's network and proxy settings (HTTPS_PROXY, NO_PROXY).`;
    }
    case 'tls':
      return `The TLS certificate of ${host} was not accepted (${fault.code}). If your network uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate.`;
    case 'no-answer':
    case 'not-a-job':
    case 'other-job':
      if (context.operation !== 'get') return ambiguous(fault, context, host);
      return `${job} could not be read from ${host}: ${briefly(fault)}.`;
  }
}

/**
 * A 429 on a create or follow-up that did not clear in time. The quota is per project and hour and
 * counts jobs and follow-up messages alike. When the reply said, sensibly, when the oldest use ages
 * out (`Retry-After`, else a reset header), the action waits for it if the timeout allows, so
 * raising the timeout helps; without it (or with a time of 0, gone by or absurd, which the client
 * drops) the action retries for only about a minute, so it does not. Only sensible times get here,
 * so the words never say "Infinity".
 */
function rateLimited(fault: Extract<Fault, { kind: 'http' }>, said: string, leftMs?: number): string {
  const quota = `The service's rate limit (429) did not clear in time: a project gets 100 uses an hour, each new job and each follow-up message counting as one, and`;
  const freesInMs = fault.retryAfterMs ?? fault.resetAfterMs;
  if (freesInMs === undefined) {
    return `${quota} the reply gave no usable time for when the oldest use ages out (without one the action retries for only about a minute). Wait and run again later, or space out the workflow's runs.${said}`;
  }
  const left = leftMs === undefined ? '' : `, and the timeout has ${inWords(Math.max(0, leftMs))} left`;
  return `${quota} the reply says the oldest use ages out in ${inWords(freesInMs)}${left}. Wait that long and run again, raise the timeout input so the action waits for the quota, or space out the workflow's runs.${said}`;
}

/** A length of time as a person would say it: "under a minute", "about 12 minutes", "about 3 hours". */
function inWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 120) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `about ${Math.round(minutes / 60)} hours`;
}

/**
 * The service may have acted on a create or message it never confirmed, and it has no
 * idempotency key: saying so is the only safe move, because a retry could start a second job.
 */
function ambiguous(fault: Fault, context: FaultContext, host: string): string {
  const mode: Mode =
    context.operation === 'create'
      ? { kind: 'create', projectId: context.projectId }
      : { kind: 'follow-up', jobId: context.jobId ?? '' };
  return `${host} gave ${briefly(fault)} to ${TO[context.operation]}: ${mayHaveActed(mode)}`;
}

/** A new job may not be readable at once on a replicated service: a 404 this early is not final. */
const EARLY_NOT_FOUND_MS = 30_000;

/** Poll faults worth waiting out (docs/design.md §3.4); everything else ends the step at once. */
export function isTransient(fault: Fault, sinceCreatedMs: number): boolean {
  switch (fault.kind) {
    case 'http':
      return (
        fault.status === 408 ||
        fault.status === 429 ||
        fault.status >= 500 ||
        (fault.status === 404 && sinceCreatedMs < EARLY_NOT_FOUND_MS)
      );
    // Another job's reply is a mixed-up cache or gateway: never this job's end, and the next read
    // may be right, as after a body that is not a job.
    case 'not-sent':
    case 'no-answer':
    case 'not-a-job':
    case 'other-job':
      return true;
    case 'tls':
      return false;
  }
}
