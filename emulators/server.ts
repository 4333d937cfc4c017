// A loopback stand-in for the docs agent service: plays jobs from `active` to a final status the
// way the real service does, lets a test script any reply (errors, slow or cut-off answers), and
// records every request together with every way it broke the OpenAPI contract.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  bearerToken,
  checkBody,
  checkRequest,
  checkResponse,
  describeStatus,
  matchPath,
  normaliseBasePath,
  type PathMatch,
  type Route,
} from './openapi.js';

export type { Route } from './openapi.js';

export const DEFAULT_API_KEY = 'mint_emulator_key_0000000000000000';

/** The service's `AgentJob` as the emulator stores and sends it. */
export interface AgentJobLike {
  id: string;
  status: string;
  source?: { repository?: string; ref?: string | null } | null;
  model?: string;
  prLink?: string | null;
  createdAt?: string;
  archivedAt?: string | null;
  [field: string]: unknown;
}

export interface EmulatorOptions {
  /** The one valid key. */
  apiKey?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A path prefix in front of `/v2/...`, e.g. `/agent-api`. */
  basePath?: string;
  /** Serve HTTPS with this key pair. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** How many GETs of a job answer `active` before it takes `final`. */
  activePolls?: number;
  /**
   * Instead of `activePolls`: a job works this long (`ms`, on the `now` clock) after its create or
   * an accepted follow-up, then takes `final` — for a model of whole workflows on a virtual clock.
   */
  pass?: { ms: number; now: () => number };
  /**
   * How many reads after a follow-up (its own reply included) still show the job as it was, as a
   * service that takes messages asynchronously may; then it plays `active` again. Default 0.
   */
  followUpLag?: number;
  /** The status a job ends in; without `prLink`, a `completed` job gets a pull request link. */
  final?: { status: string; prLink?: string | null };
  /** The docs repository: jobs' `source.repository`, and where those links point (default `https://github.com/acme/docs`). */
  docsRepoUrl?: string;
  /** Known project ids; when given, create on any other answers 404. */
  projects?: string[];
  /**
   * What a follow-up to a job whose stored status is terminal (`completed`, `failed`, `archived`)
   * gets; the service does not document it. `'accept'` (the default): the message is taken and the
   * job plays `active` again. A refusal: that status and `{"error": error}` (default "job is not
   * active"), and the message is not taken, so the job stays as it was. A scripted reply still
   * comes first. 409, 410 and 422 are not in the spec for this operation: see `refusalViolations`.
   */
  finishedJobMessages?: 'accept' | FinishedJobRefusal;
  /**
   * Plays a project over its quota: creates and follow-up messages (the two the quota counts, and
   * the two the spec lists a 429 for) answer 429 "Rate limit exceeded" with these headers, for the
   * first `times` of them (default: all). Any header value goes, so a test can play what a broken
   * or hostile service sends: `Retry-After: 0`, a date gone by, an `X-RateLimit-Reset` in the past,
   * a number no wait can be. A scripted reply still comes first.
   */
  rateLimit?: { headers?: Record<string, string>; times?: number };
  /** Called once per request when it has been answered (or dropped): for logging. */
  onReply?: (request: RecordedRequest, status: number | 'dropped') => void;
}

/** The statuses a service might plausibly refuse a follow-up to a finished job with. */
export const FINISHED_JOB_REFUSAL_STATUSES = [400, 404, 409, 410, 422] as const;

export interface FinishedJobRefusal {
  status: (typeof FINISHED_JOB_REFUSAL_STATUSES)[number];
  /** The `error` text of the reply; default "job is not active". */
  error?: string;
}

/** The statuses a job ends in; only `active` takes work. */
const TERMINAL_STATUSES = new Set(['completed', 'failed', 'archived']);

export interface Reply {
  /** Default 200 (201 for create). */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent verbatim, as text/plain unless `headers` name a content-type. */
  raw?: string;
  /**
   * Merged over the stored job (a new one for create), stored, and sent: the service holds this
   * job from now on. On message the follow-up is taken too, unless `acted` is false.
   */
  job?: Partial<AgentJobLike> & Record<string, unknown>;
  /** Wait this long before answering. */
  delayMs?: number;
  /**
   * Never answer: the request hangs until its client gives up or the emulator closes (what the
   * service did behind it is `acted`'s). For a client's own budgets, whatever the machine's speed.
   */
  hold?: true;
  /** Close the connection without any reply, or after the headers and half the body. */
  drop?: 'before-reply' | 'mid-body';
  /**
   * create / message: whether the service still did its work (created the job, took the
   * follow-up) behind a reply that carries no `job`, e.g. a 500 or a dropped connection. Default
   * false. A reply with no body and no error status answers as the service would, work included.
   */
  acted?: boolean;
}

export interface RecordedRequest {
  route: Route | 'unknown';
  method: string;
  /** The raw request target, query included. */
  path: string;
  projectId?: string;
  jobId?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  at: number;
}

export interface Emulator {
  /** Base URL, prefix included, no trailing slash. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  violations: string[];
  jobs: Map<string, AgentJobLike>;
  /**
   * Queues replies for a route; each request of that route takes the next one, whatever its key
   * or body (the contract checks still run). An empty queue means the default play.
   */
  script(route: Route, ...replies: Reply[]): void;
  /** Drops the replies scripted for `route` that no request used: it answers as usual again. */
  unscript(route: Route): void;
  count(route: Route): number;
  /**
   * Settles once `route` has had `n` requests (counted from the emulator's start): when one
   * arrives, not on a timer, so a test that must act once a request is here waits for that alone.
   */
  received(route: Route, n: number): Promise<void>;
  /** Stops the server, cutting open connections and pending delayed replies. */
  close(): Promise<void>;
}

/** What goes back on the wire. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: string;
  /** The `finishedJobMessages` refusal: checked by `refusalViolations`, not `checkResponse`. */
  refusal?: true;
}

/** What the emulator knows about a job beyond what it sends. */
interface JobState {
  projectId: string;
  polls: number;
  prNumber: number;
  /** A follow-up not yet visible: reads left that show the job as it was. */
  lagging?: number;
  /** With `pass`: when its current pass began. */
  since?: number;
}

interface Exchange {
  method: string;
  match?: PathMatch;
  route?: Route;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const basePath = normaliseBasePath(options.basePath);
  const activePolls = options.activePolls ?? 2;
  const final = options.final ?? { status: 'completed' };
  const projects = options.projects && new Set(options.projects);

  const requests: RecordedRequest[] = [];
  /** Tests waiting for a route's nth request (`received`). */
  const arrivals = new Set<{ route: Route; n: number; resolve: () => void }>();
  const violations: string[] = [];
  const jobs = new Map<string, AgentJobLike>();
  const states = new Map<string, JobState>();
  const queues: Record<Route, Reply[]> = { create: [], get: [], message: [] };
  const closing = new AbortController();
  let prCount = 0;
  let rateLimited = 0;

  function blankJob(id = `job_${randomBytes(6).toString('hex')}`): AgentJobLike {
    return {
      id,
      status: 'active',
      source: { repository: options.docsRepoUrl ?? 'https://github.com/acme/docs', ref: 'main' },
      model: 'claude-sonnet-4',
      prLink: null,
      createdAt: new Date().toISOString(),
      archivedAt: null,
    };
  }

  function newJob(projectId: string): AgentJobLike {
    const job = blankJob();
    store(job, projectId);
    return job;
  }

  function store(job: AgentJobLike, projectId: string, key = job.id): void {
    jobs.set(key, job);
    if (!states.has(key))
      states.set(key, { projectId, polls: 0, prNumber: ++prCount, since: options.pass?.now() });
  }

  /** The stored job, only if it belongs to the project in the path (as on the service). */
  function findJob(match: PathMatch): AgentJobLike | undefined {
    const { jobId, projectId } = match;
    if (jobId === undefined || states.get(jobId)?.projectId !== projectId) return undefined;
    return jobs.get(jobId);
  }

  // A follow-up puts the job back to work: it plays `active` again for `activePolls` polls,
  // at once or after `followUpLag` reads.
  function followUp(match: PathMatch): AgentJobLike | undefined {
    const job = findJob(match);
    const state = match.jobId === undefined ? undefined : states.get(match.jobId);
    if (!job || !state) return undefined;
    const lag = options.followUpLag ?? 0;
    if (lag > 0) state.lagging = lag - 1;
    else restart(job, state);
    return job;
  }

  function restart(job: AgentJobLike, state: JobState): void {
    job.status = 'active';
    job.archivedAt = null;
    state.polls = 0;
    state.lagging = undefined;
    state.since = options.pass?.now();
  }

  // Only an `active` job moves on, so a status a script set sticks until a follow-up.
  function poll(job: AgentJobLike, state: JobState): void {
    if (state.lagging !== undefined) {
      if (state.lagging > 0) {
        state.lagging -= 1;
        return;
      }
      restart(job, state);
    }
    if (job.status !== 'active') return;
    state.polls += 1;
    const { pass } = options;
    if (pass ? pass.now() < (state.since ?? 0) + pass.ms : state.polls <= activePolls) return;
    job.status = final.status;
    if (final.prLink !== undefined) job.prLink = final.prLink;
    else if (final.status === 'completed') {
      job.prLink ??= `${options.docsRepoUrl ?? 'https://github.com/acme/docs'}/pull/${state.prNumber}`;
    }
    if (final.status === 'archived') job.archivedAt = new Date().toISOString();
  }

  function defaultAnswer(exchange: Exchange): Answer {
    const { refusal, ...answer } = serviceAnswer(exchange);
    // Keeps the emulator's own replies honest against the spec it emulates.
    if (refusal) violations.push(...refusalViolations(answer.status, answer.json));
    else if (exchange.route) violations.push(...checkResponse(exchange.route, answer.status, answer.json));
    return answer;
  }

  /**
   * The refusal `finishedJobMessages` asks for, when this follow-up goes to a finished job. A job
   * whose last follow-up is still lagging is not finished: the service has taken work for it.
   */
  function refuseFinished(match: PathMatch): Answer | undefined {
    const refusal = options.finishedJobMessages;
    if (refusal === undefined || refusal === 'accept') return undefined;
    const job = findJob(match);
    const state = match.jobId === undefined ? undefined : states.get(match.jobId);
    if (!job || !state || state.lagging !== undefined || !TERMINAL_STATUSES.has(job.status)) return undefined;
    return { ...error(refusal.status, refusal.error ?? 'job is not active'), refusal: true };
  }

  function serviceAnswer({ method, match, route, headers, body }: Exchange): Answer {
    if (!match) return error(404, 'Not found');
    if (!route) {
      return { ...error(405, `Method ${method} not allowed`), headers: { allow: match.methods.join(', ') } };
    }
    if (bearerToken(headers.authorization) !== apiKey) return error(401, 'Invalid API key');
    if (route === 'create' && projects && !projects.has(match.projectId)) {
      return error(404, 'Project not found');
    }
    if (route !== 'create' && !findJob(match)) return error(404, 'Job not found');
    const invalid = checkBody(route, headers['content-type'], body)[0];
    if (invalid !== undefined) return error(400, invalid);
    const limit = options.rateLimit;
    if (limit && route !== 'get' && rateLimited < (limit.times ?? Infinity)) {
      rateLimited += 1;
      return {
        ...error(429, 'Rate limit exceeded'),
        ...(limit.headers && { headers: { ...limit.headers } }),
      };
    }
    switch (route) {
      case 'create':
        return { status: 201, json: newJob(match.projectId) };
      case 'message':
        return refuseFinished(match) ?? { status: 200, json: followUp(match) };
      case 'get': {
        const job = findJob(match);
        const state = match.jobId === undefined ? undefined : states.get(match.jobId);
        if (job && state) poll(job, state);
        return { status: 200, json: job };
      }
    }
  }

  // The service's work behind a create or message, done whatever the scripted reply says.
  function act(route: 'create' | 'message', match: PathMatch): AgentJobLike | undefined {
    return route === 'create' ? newJob(match.projectId) : followUp(match);
  }

  function scriptedAnswer(
    reply: Reply,
    exchange: Exchange & { route: Route; match: PathMatch },
  ): Answer | undefined {
    const { route, match } = exchange;
    const status = reply.status ?? (route === 'create' ? 201 : 200);
    const headers = reply.headers;
    // A job in the reply is the job the service holds from now on.
    if (reply.job !== undefined) {
      if (route === 'message' && reply.acted !== false) followUp(match);
      const base = (route !== 'create' && findJob(match)) || blankJob(match.jobId);
      const job: AgentJobLike = { ...base, ...reply.job };
      store(job, match.projectId, route === 'create' ? job.id : match.jobId);
      return { status, headers, json: job };
    }
    const actedJob = reply.acted === true && route !== 'get' ? act(route, match) : undefined;
    if (reply.json !== undefined) return { status, headers, json: reply.json };
    if (reply.raw !== undefined) return { status, headers, raw: reply.raw };
    if (reply.status !== undefined && reply.status >= 400) {
      return { ...error(reply.status, describeStatus(route, reply.status)), headers };
    }
    // No body given: nothing to send when the connection is cut first; otherwise the service
    // answers as it would by default, just late, cut off, or with extra headers.
    if (reply.drop === 'before-reply' && !actedJob) return undefined;
    const answer = actedJob ? { status, json: actedJob } : defaultAnswer(exchange);
    return { ...answer, status: reply.status ?? answer.status, headers: { ...answer.headers, ...headers } };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const at = Date.now();
    const body = await readBody(req);
    // The client gave up while sending: there is no request to answer or record.
    if (body === undefined) return;
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
    const match = matchPath(pathname, basePath);
    const route = match?.methods.includes(method) ? match.route : undefined;

    const recorded: RecordedRequest = {
      route: route ?? 'unknown',
      method,
      path: target,
      ...(match && { projectId: match.projectId }),
      ...(match?.jobId !== undefined && { jobId: match.jobId }),
      headers: { ...req.headers },
      body,
      ...parseJson(body),
      at,
    };
    requests.push(recorded);
    for (const waiter of [...arrivals]) {
      if (requests.filter((r) => r.route === waiter.route).length < waiter.n) continue;
      arrivals.delete(waiter);
      waiter.resolve();
    }
    violations.push(
      ...checkRequest({
        method,
        pathname,
        search: queryAt === -1 ? '' : target.slice(queryAt),
        basePath,
        headers: req.headers,
        body,
      }),
    );

    const exchange: Exchange = { method, match, route, headers: req.headers, body };
    const reply = route ? queues[route].shift() : undefined;
    const answer =
      reply && route && match
        ? scriptedAnswer(reply, { ...exchange, route, match })
        : defaultAnswer(exchange);
    const outcome = await deliver(res, answer, reply, closing.signal);
    options.onReply?.(recorded, outcome);
  }

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      violations.push(`emulator failed on ${req.method} ${req.url}: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Emulator error' }));
    });
  };
  const server = options.tls ? https.createServer({ ...options.tls }, listener) : http.createServer(listener);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  let closed: Promise<void> | undefined;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}${basePath}`,
    port,
    requests,
    violations,
    jobs,
    script: (route, ...replies) => void queues[route].push(...replies),
    unscript: (route) => void queues[route].splice(0),
    count: (route) => requests.filter((request) => request.route === route).length,
    received: (route, n) =>
      requests.filter((request) => request.route === route).length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve) => void arrivals.add({ route, n, resolve })),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

/**
 * The contract check of a `finishedJobMessages` refusal. The spec lists 400 and 404 for a message,
 * and those are checked as any default reply is. 409, 410 and 422 it does not list; but it does
 * not say what a follow-up to a finished job gets at all, and those are what HTTP services
 * commonly answer to work sent to something finished (conflict, gone, unprocessable). Restricting
 * the option to 400 and 404 would make the emulator unable to play answers the real service may
 * give, and the action must handle them. So a status chosen through this option is not counted as
 * a violation: it is a deliberate, named guess at undocumented behaviour, not the emulator drifting
 * from its contract. The exemption is that narrow: only this option's reply, only on `message`
 * (every other default reply with an unlisted status still counts), and its body is still held to
 * the spec's `Error` shape (through the documented 400, whose body is that schema).
 */
function refusalViolations(status: number, body: unknown): string[] {
  if (describeStatus('message', status) !== undefined) return checkResponse('message', status, body);
  return checkResponse('message', 400, body).map((problem) =>
    problem.replace('message 400', `message ${status}`),
  );
}

function error(status: number, message = http.STATUS_CODES[status] ?? `HTTP ${status}`): Answer {
  return { status, json: { error: message } };
}

function parseJson(body: string): { json?: unknown } {
  if (body === '') return {};
  try {
    return { json: JSON.parse(body) as unknown };
  } catch {
    return {};
  }
}

async function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends an answer, or cuts the connection as the reply asks; says which happened. */
async function deliver(
  res: http.ServerResponse,
  answer: Answer | undefined,
  reply: Reply | undefined,
  closing: AbortSignal,
): Promise<number | 'dropped'> {
  if (reply?.hold) {
    await new Promise<void>((resolve) => {
      if (closing.aborted) return resolve();
      // Whichever comes first; the other's listener goes with it.
      const done = () => {
        closing.removeEventListener('abort', done);
        resolve();
      };
      closing.addEventListener('abort', done, { once: true });
      res.once('close', done);
    });
    res.destroy();
    return 'dropped';
  }
  if (reply?.delayMs) {
    try {
      await sleep(reply.delayMs, undefined, { signal: closing });
    } catch {
      return 'dropped';
    }
  }
  if (!answer || reply?.drop === 'before-reply') {
    res.destroy();
    return 'dropped';
  }
  const headers = Object.fromEntries(
    Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  let text = '';
  if (answer.raw !== undefined) {
    text = answer.raw;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (answer.json !== undefined) {
    text = JSON.stringify(answer.json);
    headers['content-type'] ??= 'application/json';
  }
  const payload = Buffer.from(text, 'utf8');
  headers['content-length'] = String(payload.length);
  res.writeHead(answer.status, headers);
  if (reply?.drop === 'mid-body') {
    // Content-Length promises the whole body; the client sees it end early.
    res.flushHeaders();
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.destroy());
    return 'dropped';
  }
  res.end(payload);
  return answer.status;
}
