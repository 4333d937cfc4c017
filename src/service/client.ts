// undici is pinned to the major that @actions/http-client (pulled in by @actions/core) uses, so
// npm dedupes them and the bundle holds one copy: a second one doubled start-up parsing.
import { request, type Dispatcher } from 'undici';
import { failedBeforeSending } from './dispatcher.js';
import { parseJob, type AgentJob } from '../core/job.js';
import { parseRetryAfter, sensibleWait } from './retry-after.js';
import { redactJson } from '../core/secrets.js';

/** The three calls the action makes. */
export type Operation = 'create' | 'get' | 'message';

/**
 * What went wrong with one request, in the terms the fault rules (docs/design.md §3.4) need:
 * - `http`: the service answered with a non-success status; `retryAfterMs` is its `Retry-After`,
 *   `resetAfterMs` its `RateLimit-Reset` or `X-RateLimit-Reset` (when the quota frees a use), both
 *   in milliseconds from when the reply came, each only when it states a sensible wait (in the
 *   future, at most a day: see `sensibleWait`); a `0`, a time gone by or an absurd value is left
 *   out, so the caller backs off as for a reply that said nothing;
 * - `not-sent`: the connection could not be opened (connection refused, DNS failure, the proxy
 *   refused the tunnel, connect timeout), so the request never left and repeating it cannot
 *   create a second job;
 * - `no-answer`: the request may have reached the service, but no full answer came back (reset,
 *   header or body timeout);
 * - `not-a-job`: a success status whose body is not JSON or not a job;
 * - `other-job`: a success status whose body is a job, but not the one the request named (`id` is
 *   the one it names): a mixed-up cache or gateway, never this job's news;
 * - `tls`: the certificate was not trusted or did not match.
 */
export type Fault =
  | { kind: 'http'; status: number; retryAfterMs?: number; resetAfterMs?: number; serviceMessage?: string }
  | { kind: 'not-sent'; code: string }
  | { kind: 'no-answer'; code: string }
  | { kind: 'not-a-job'; status: number }
  | { kind: 'other-job'; status: number; id: string }
  | { kind: 'tls'; code: string };

export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly operation: Operation,
    readonly fault: Fault,
  ) {
    super(
      `${operation}: ${fault.kind}${'status' in fault ? ` ${fault.status}` : ''}${'code' in fault ? ` ${fault.code}` : ''}`,
    );
  }
}

export interface ClientOptions {
  baseUrl: string;
  projectId: string;
  apiKey: string;
  dispatcher: Dispatcher;
  userAgent: string;
  /** For `Retry-After` dates. */
  now?: () => number;
}

export interface CallOptions {
  /** Headers and body each get this long; docs/design.md §3.4 says 30 s. */
  timeoutMs?: number;
  /** The whole exchange, connecting included, gets at most this long (default: `timeoutMs` + 1 s). */
  totalMs?: number;
  signal?: AbortSignal;
}

/** docs/design.md §3.4: each request has 30 s for its headers and for its body. */
export const REQUEST_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 1024 * 1024;

/** The service's three calls, as the steps use them (a plain object can play them in a test). */
export type ServiceCalls = Pick<AgentClient, 'createJob' | 'sendMessage' | 'getJob'>;

export class AgentClient {
  private readonly now: () => number;

  constructor(private readonly options: ClientOptions) {
    this.now = options.now ?? Date.now;
  }

  createJob(prompt: string, call: CallOptions = {}): Promise<AgentJob> {
    return this.send('create', 'POST', this.jobsPath(), { prompt }, call);
  }

  getJob(id: string, call: CallOptions = {}): Promise<AgentJob> {
    return this.send('get', 'GET', `${this.jobsPath()}/${encodeURIComponent(id)}`, undefined, call, id);
  }

  sendMessage(id: string, prompt: string, call: CallOptions = {}): Promise<AgentJob> {
    return this.send(
      'message',
      'POST',
      `${this.jobsPath()}/${encodeURIComponent(id)}/message`,
      { prompt },
      call,
      id,
    );
  }

  private jobsPath(): string {
    return `/v2/agent/${encodeURIComponent(this.options.projectId)}/job`;
  }

  private async send(
    operation: Operation,
    method: 'GET' | 'POST',
    path: string,
    body: { prompt: string } | undefined,
    call: CallOptions,
    /** The job the request names: a reply about another one is a fault, not its answer. */
    jobId?: string,
  ): Promise<AgentJob> {
    const timeout = call.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (body) headers['content-type'] = 'application/json';

    // Headers and body each have `timeout`; this bounds the whole exchange, connecting included.
    const overall = AbortSignal.timeout(call.totalMs ?? timeout + 1000);
    let response: Dispatcher.ResponseData;
    let text: string;
    try {
      response = await request(`${this.options.baseUrl}${path}`, {
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
        dispatcher: this.options.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: call.signal ? AbortSignal.any([call.signal, overall]) : overall,
        // Redirects are not followed: a redirect to another host would carry the key there.
        maxRedirections: 0,
      });
      text = await readCapped(response.body);
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      // A header value undici refuses is our bug, found before anything was sent.
      if (hasCode(error, 'UND_ERR_INVALID_ARG')) throw error;
      throw new ServiceError(
        operation,
        overall.aborted ? { kind: 'no-answer', code: 'request timeout' } : classify(error),
      );
    }

    const { statusCode: status } = response;
    if (status < 200 || status > 299) {
      const now = this.now();
      const retryAfterMs = parseRetryAfter(firstValue(response.headers['retry-after']), now);
      const resetAfterMs = parseRateLimitReset(response.headers, now);
      throw new ServiceError(operation, {
        kind: 'http',
        status,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
        ...(resetAfterMs !== undefined && { resetAfterMs }),
        serviceMessage: serviceMessage(readReply(text)),
      });
    }
    const job = parseJob(readReply(text));
    if (!job) throw new ServiceError(operation, { kind: 'not-a-job', status });
    if (jobId !== undefined && job.id !== jobId)
      throw new ServiceError(operation, { kind: 'other-job', status, id: job.id });
    return job;
  }
}

/**
 * JSON nested deeper than this is not a reply of this service (a job is three levels deep): it is
 * treated as a body that is not JSON, before anything walks it, so no reply can exhaust the stack
 * on its way to the outputs (`JSON.stringify` recurses).
 */
const MAX_REPLY_DEPTH = 64;

/**
 * The body as a value, redacted before anything reads it: a gateway may echo the bearer token it
 * refused, and the job's fields go to the log, the outputs and the summary. `undefined` when it is
 * not JSON, too deep, or anything at all goes wrong reading it: the callers then see a reply that
 * is not a job, which each operation's fault rules already handle (a create that may have created
 * a job says so; a poll tries again).
 */
function readReply(text: string): unknown {
  try {
    if (nestedDeeperThan(text, MAX_REPLY_DEPTH)) return undefined;
    return redactJson(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Whether JSON text opens more than `max` arrays or objects inside each other; one pass, no recursion. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    // Replies are a few hundred bytes; a huge one is not a job and must not fill the runner's memory.
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

/** Any later than this is an epoch time, not a delta: 10^9 s is 2001, and no window is 31 years. */
const EPOCH_SECONDS_FROM = 1e9;

/**
 * When the quota frees a use, in milliseconds from `now`, from the headers rate-limited services
 * send beside (or instead of) `Retry-After`: `RateLimit-Reset`, delta seconds (the IETF
 * draft-ietf-httpapi-ratelimit-headers), else `X-RateLimit-Reset`, epoch seconds when above 10^9,
 * else delta seconds (services use both). `undefined` when neither is there, readable or sensible
 * (a reset of 0 or gone by would turn waiting into a burst of requests, see `sensibleWait`).
 */
function parseRateLimitReset(
  headers: Record<string, string | string[] | undefined>,
  now: number,
): number | undefined {
  const draft = seconds(firstValue(headers['ratelimit-reset']));
  const fromDraft = draft === undefined ? undefined : sensibleWait(draft * 1000);
  if (fromDraft !== undefined) return fromDraft;
  const legacy = seconds(firstValue(headers['x-ratelimit-reset']));
  if (legacy === undefined) return undefined;
  return sensibleWait(legacy > EPOCH_SECONDS_FROM ? legacy * 1000 - now : legacy * 1000);
}

function seconds(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** The service's `{"error": "..."}` text, when the body has one. */
function serviceMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' && body.error) {
    return body.error;
  }
  return undefined;
}

/** Every `code` on the error and its causes: undici wraps socket and TLS errors. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function isTlsCode(code: string): boolean {
  return code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';
}

function hasCode(error: unknown, code: string): boolean {
  return errorCodes(error).includes(code);
}

function classify(error: unknown): Fault {
  const codes = errorCodes(error);
  const tls = codes.find(isTlsCode);
  if (tls) return { kind: 'tls', code: tls };
  const code = codes.find((c) => c !== 'UND_ERR_SOCKET') ?? codes[0] ?? 'no code';
  if (failedBeforeSending(error)) {
    // undici reports a proxy that answered the CONNECT with anything but 200 as an abort while
    // connecting. The status it answered is only in the message: a detail, not the test.
    if (codes.includes('UND_ERR_ABORTED')) {
      const status = /\((\d{3})\)/.exec(error instanceof Error ? error.message : '')?.[1];
      return {
        kind: 'not-sent',
        code: status ? `the proxy answered ${status}` : 'the proxy refused the tunnel',
      };
    }
    return { kind: 'not-sent', code };
  }
  return { kind: 'no-answer', code };
}
