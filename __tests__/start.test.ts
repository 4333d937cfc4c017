// The no-blind-retry rule of the create and follow-up paths (docs/design.md §3.4), and
// cancellation of them (§3.5), on the virtual clock against the emulator over real sockets: a
// request is sent again only after a 429 or when the connection never opened.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { Cancelled } from '../src/execute/cancel.js';
import { AgentClient } from '../src/service/client.js';
import { connect } from '../src/service/dispatcher.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { ActionFailure, type FaultContext } from '../src/service/errors.js';
import type { Mode } from '../src/core/mode.js';
import { startJob } from '../src/execute/start.js';
import type { Log } from '../src/core/log.js';
import { VirtualClock } from '../__fixtures__/clock.js';

const KEY = 'mint_start_test_key';
let service: Emulator;
const { dispatcher } = connect('http://127.0.0.1');
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY });
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  await service.close();
  await dispatcher.close();
});

function setUp(baseUrl = service.url, timeoutMs = 600_000) {
  const clock = new VirtualClock();
  const client = new AgentClient({
    baseUrl,
    projectId: 'p',
    apiKey: KEY,
    dispatcher,
    userAgent: 'test',
    now: clock.now,
  });
  const warnings: string[] = [];
  const log: Log = {
    info: () => undefined,
    notice: () => undefined,
    warning: (m) => warnings.push(m),
    debug: () => undefined,
  };
  const context: FaultContext = { operation: 'create', baseUrl, projectId: 'p' };
  const options = { clock, deadline: clock.now() + timeoutMs, log, context };
  return { clock, client, warnings, options };
}

const create: Mode = { kind: 'create', projectId: 'p' };

async function thrown(promise: Promise<unknown>): Promise<ActionFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return error as ActionFailure;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  return (await thrown(promise)).message;
}

const QUOTA =
  "The service's rate limit (429) did not clear in time: a project gets 100 uses an hour, each new job and each follow-up message counting as one, and";

describe('create: sent again only when the service certainly did not act', () => {
  it('after a 429, waiting Retry-After', async () => {
    const { clock, client, options } = setUp();
    const before = service.count('create');
    service.script('create', { status: 429, headers: { 'retry-after': '7' } });
    const started = await startJob(client, create, 'x', options);
    expect(started.job?.status).toBe('active');
    expect(service.count('create') - before).toBe(2);
    expect(clock.sleeps).toEqual([7000]);
  });

  it('after 429s without Retry-After, backing off 2, 4 and 8 s', async () => {
    const { clock, client, options } = setUp();
    service.script('create', { status: 429 }, { status: 429 }, { status: 429 });
    await startJob(client, create, 'x', options);
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
  });

  it('after 429s without Retry-After, for about a minute in all (5 waits), then it fails', async () => {
    const { clock, client, options, warnings } = setUp(service.url, 30 * 60_000);
    const before = service.count('create');
    service.script('create', ...Array.from({ length: 6 }, () => ({ status: 429 })));
    const message = await failure(startJob(client, create, 'x', options));
    expect(clock.sleeps).toEqual([2000, 4000, 8000, 16000, 32000]);
    expect(service.count('create') - before).toBe(6);
    expect(warnings).toHaveLength(5);
    expect(message).toBe(
      `${QUOTA} the reply gave no usable time for when the oldest use ages out (without one the action retries for only about a minute). Wait and run again later, or space out the workflow's runs. The service said: "Rate limit exceeded".`,
    );
  });

  it('not after a 429 whose wait would pass the deadline', async () => {
    const { clock, client, options } = setUp(service.url, 5000);
    const before = service.count('create');
    service.script('create', { status: 429, headers: { 'retry-after': '60' } });
    expect(await failure(startJob(client, create, 'x', options))).toBe(
      `${QUOTA} the reply says the oldest use ages out in about 1 minute, and the timeout has under a minute left. Wait that long and run again, raise the timeout input so the action waits for the quota, or space out the workflow's runs. The service said: "Rate limit exceeded".`,
    );
    expect(service.count('create') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    ['RateLimit-Reset in seconds', { 'ratelimit-reset': '720' }, 'in about 12 minutes'],
    ['X-RateLimit-Reset in seconds', { 'x-ratelimit-reset': '3000' }, 'in about 50 minutes'],
    [
      'X-RateLimit-Reset as epoch seconds',
      { 'x-ratelimit-reset': String(1_700_000_000 + 2400) },
      'in about 40 minutes',
    ],
    [
      'an HTTP-date Retry-After',
      { 'retry-after': new Date(1_700_000_000_000 + 45 * 60_000).toUTCString() },
      'in about 45 minutes',
    ],
  ])(
    'not after a 429 with %s past the deadline, saying when the quota frees',
    async (_what, headers, when) => {
      const { clock, client, options } = setUp();
      const before = service.count('create');
      service.script('create', { status: 429, headers });
      const message = await failure(startJob(client, create, 'x', options));
      expect(message).toContain(
        `${QUOTA} the reply says the oldest use ages out ${when}, and the timeout has about 10 minutes left.`,
      );
      expect(message).toContain('raise the timeout input so the action waits for the quota');
      expect(service.count('create') - before).toBe(1);
      expect(clock.sleeps).toEqual([]);
    },
  );

  it('after a 429 whose reset header lies within the deadline, waiting for it', async () => {
    const { clock, client, options } = setUp();
    service.script('create', { status: 429, headers: { 'ratelimit-reset': '90' } });
    expect((await startJob(client, create, 'x', options)).job?.status).toBe('active');
    expect(clock.sleeps).toEqual([90_000]);
  });

  it('when the connection never opened: 3 more tries, 1, 2 and 4 s apart', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const { clock, client, options, warnings } = setUp(`http://127.0.0.1:${port}`);
    expect(await failure(startJob(client, create, 'x', options))).toContain('(ECONNREFUSED) after 4 tries');
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
    expect(warnings).toHaveLength(3);
  });

  // The virtual clock starts at 1_700_000_000 s (2023-11-14 22:13:20 UTC).
  it.each([
    ['Retry-After: 0', { 'retry-after': '0' }],
    ['a Retry-After date gone by', { 'retry-after': 'Tue, 14 Nov 2023 22:00:00 GMT' }],
    ['an X-RateLimit-Reset gone by', { 'x-ratelimit-reset': '1699999000' }],
    ['a RateLimit-Reset of 0', { 'ratelimit-reset': '0' }],
    ['a huge Retry-After', { 'retry-after': '99999999999999999999' }],
    ['a Retry-After date in the year 9999', { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }],
    ['a negative Retry-After', { 'retry-after': '-5' }],
    ['Retry-After: Infinity', { 'retry-after': 'Infinity' }],
    ['Retry-After: NaN', { 'retry-after': 'NaN' }],
  ])(
    'after 429s with %s: the backoff and the one-minute cap of a reply with no time',
    async (_what, headers) => {
      const { clock, client, options, warnings } = setUp(service.url, 30 * 60_000);
      const before = service.count('create');
      service.script('create', ...Array.from({ length: 6 }, () => ({ status: 429, headers })));
      const message = await failure(startJob(client, create, 'x', options));
      expect(clock.sleeps).toEqual([2000, 4000, 8000, 16000, 32000]);
      expect(service.count('create') - before).toBe(6);
      expect(message).toContain('the reply gave no usable time for when the oldest use ages out');
      for (const text of [message, ...warnings]) expect(text).not.toMatch(/Infinity|NaN|undefined/);
    },
  );

  it('after 429s whose Retry-After is too short to mean anything, no sooner than the backoff', async () => {
    const { clock, client, options } = setUp();
    const soon = { status: 429, headers: { 'retry-after': '1' } };
    service.script('create', soon, soon, soon, soon, soon, soon, soon, soon);
    await startJob(client, create, 'x', options);
    // A stated time goes on past the blind tries' minute, but a minute apart at most often.
    expect(clock.sleeps).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  });

  it('not after a 429 asking for hours when minutes are left, saying both in words', async () => {
    const { clock, client, options } = setUp(service.url, 12 * 60_000);
    service.script('create', { status: 429, headers: { 'retry-after': String(3 * 3600) } });
    const message = await failure(startJob(client, create, 'x', options));
    expect(message).toContain(
      `${QUOTA} the reply says the oldest use ages out in about 3 hours, and the timeout has about 12 minutes left.`,
    );
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    ['a 500', { status: 500, acted: true }],
    ['a 503 even when the service acted', { status: 503, acted: true }],
    ['a reset after the request was sent', { drop: 'before-reply' as const, acted: true }],
    ['a reply cut off mid-body', { drop: 'mid-body' as const }],
    ['a body that is not JSON', { status: 201, raw: '<html>gateway</html>' }],
    ['JSON that is not a job', { status: 201, json: { ok: true } }],
  ])('never after %s: the job may exist, and the message says where to look', async (_what, reply) => {
    const { clock, client, options } = setUp();
    const before = service.count('create');
    service.script('create', reply);
    const message = await failure(startJob(client, create, 'x', options));
    expect(message).toContain('the job may have been created anyway, so the action does not send it again');
    expect(message).toContain('Look for a new agent job in project p');
    expect(service.count('create') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('create: fails at once, in words that say what to fix', () => {
  it.each([
    [
      400,
      { error: 'prompt is too long' },
      'The service rejected the request to create the job as invalid (400). The service said: "prompt is too long". Check the prompt and projectId inputs.',
    ],
    [
      401,
      { error: 'Invalid API key' },
      'The service rejected the API key (401): it is missing, mistyped, expired or revoked.',
    ],
    [
      403,
      { error: 'Forbidden' },
      "lacks the write scope, or this runner's IP address is not on the key's allowlist",
    ],
    [404, { error: 'Project not found' }, 'No project p at http://127.0.0.1:'],
    [409, { error: 'Conflict' }, 'The service answered 409 to the request to create the job.'],
  ])('on %d', async (status, json, message) => {
    const { clock, client, options } = setUp();
    const before = service.count('create');
    service.script('create', { status, json });
    const error = await thrown(startJob(client, create, 'x', options));
    expect(error.message).toContain(message);
    // The fault travels with the failure, for callers that must tell refusals apart.
    expect(error.fault).toEqual({ kind: 'http', status, serviceMessage: json.error });
    expect(service.count('create') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('carries the fault of a failure the service may have acted behind, and of a 429', async () => {
    const { client, options } = setUp(service.url, 5000);
    service.script('create', { status: 502 });
    expect((await thrown(startJob(client, create, 'x', options))).fault).toMatchObject({
      kind: 'http',
      status: 502,
    });
    service.script('create', { status: 429, headers: { 'retry-after': '60' } });
    expect((await thrown(startJob(client, create, 'x', options))).fault).toMatchObject({
      kind: 'http',
      status: 429,
      retryAfterMs: 60_000,
    });
  });
});

describe('follow-up: the same rule', () => {
  it('never sends a message again after a 502', async () => {
    const { client, options } = setUp();
    const { job } = await startJob(client, create, 'x', options);
    const before = service.count('message');
    service.script('message', { status: 502, acted: true });
    const message = await failure(
      startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options),
    );
    expect(message).toContain(
      `the message may have reached the job anyway, so the action does not send it again. Check agent job ${job?.id} before you re-run.`,
    );
    expect(service.count('message') - before).toBe(1);
  });

  it('never takes a reply about another job as the follow-up taken, nor sends it again', async () => {
    const { client, options } = setUp();
    const { job } = await startJob(client, create, 'x', options);
    const before = service.count('message');
    service.script('message', { json: { id: 'job_someone_else', status: 'active' } });
    const error = await thrown(
      startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options),
    );
    expect(error.message).toContain('HTTP 200 with another job (job_someone_else) to the follow-up message');
    expect(error.message).toContain(
      `the message may have reached the job anyway, so the action does not send it again`,
    );
    expect(error.fault).toEqual({ kind: 'other-job', status: 200, id: 'job_someone_else' });
    expect(service.count('message') - before).toBe(1);
  });

  it('sends it again after a 429', async () => {
    const { clock, client, options } = setUp();
    const { job } = await startJob(client, create, 'x', options);
    const before = service.count('message');
    service.script('message', { status: 429, headers: { 'retry-after': '3' } });
    const started = await startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options);
    expect(started.settledAfter).toBe(clock.now() + 30_000);
    expect(service.count('message') - before).toBe(2);
  });

  it.each([400, 404, 409, 410, 422])('fails at once on a %d, carrying the fault', async (status) => {
    const { clock, client, options } = setUp();
    const { job } = await startJob(client, create, 'x', options);
    const before = service.count('message');
    service.script('message', { status, json: { error: 'job is not active' } });
    const error = await thrown(
      startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options),
    );
    expect(error.fault).toEqual({ kind: 'http', status, serviceMessage: 'job is not active' });
    expect(service.count('message') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('carries the fault of the emulator playing a refusal to a finished job', async () => {
    const refusing = await startEmulator({
      apiKey: KEY,
      activePolls: 0,
      finishedJobMessages: { status: 409, error: 'job is completed' },
    });
    try {
      const { client, options } = setUp(refusing.url);
      const { job } = await startJob(client, create, 'x', options);
      await client.getJob(job?.id ?? '');
      const error = await thrown(
        startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options),
      );
      expect(error.fault).toEqual({ kind: 'http', status: 409, serviceMessage: 'job is completed' });
      expect(error.message).toContain('The service answered 409 to the follow-up message.');
      expect(refusing.jobs.get(job?.id ?? '')?.status).toBe('completed');
      expect(refusing.violations).toEqual([]);
    } finally {
      await refusing.close();
    }
  });

  it('counts follow-ups in the words of a 429 too', async () => {
    const { client, options } = setUp(service.url, 5000);
    const { job } = await startJob(client, create, 'x', options);
    service.script('message', { status: 429, headers: { 'ratelimit-reset': '1800' } });
    expect(
      await failure(startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options)),
    ).toContain(
      `${QUOTA} the reply says the oldest use ages out in about 30 minutes, and the timeout has under a minute left.`,
    );
  });

  it('makes no request when only waiting on a job', async () => {
    const { client, options } = setUp();
    const before = service.requests.length;
    expect(await startJob(client, { kind: 'wait', jobId: 'job_elsewhere' }, undefined, options)).toEqual({
      id: 'job_elsewhere',
      createdAt: -Infinity,
    });
    expect(service.requests.length).toBe(before);
  });
});

describe('cancellation', () => {
  it('ends a 429 wait at once with the cancellation, not a retry', async () => {
    const { clock, client, options } = setUp();
    const controller = new AbortController();
    const cancelled = new Cancelled('SIGINT');
    // The signal arrives while the action waits out the 429, as the runner's would.
    clock.sleep = async (_ms, signal) => {
      controller.abort(cancelled);
      if (signal?.aborted) throw signal.reason;
    };
    const before = service.count('create');
    service.script('create', { status: 429, headers: { 'retry-after': '30' } });
    await expect(startJob(client, create, 'x', { ...options, signal: controller.signal })).rejects.toBe(
      cancelled,
    );
    expect(service.count('create') - before).toBe(1);
  });

  it('aborts a create in flight with the cancellation itself', async () => {
    const { client, options } = setUp();
    const controller = new AbortController();
    service.script('create', { hold: true, acted: true });
    const cancelled = new Cancelled('SIGTERM');
    setTimeout(() => controller.abort(cancelled), 100);
    await expect(startJob(client, create, 'x', { ...options, signal: controller.signal })).rejects.toBe(
      cancelled,
    );
  });
});
