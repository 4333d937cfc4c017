// The no-blind-retry rule of the create and follow-up paths (docs/design.md §3.4), and
// cancellation of them (§3.5), on the virtual clock against the emulator over real sockets: a
// request is sent again only after a 429 or when the connection never opened.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { Cancelled } from '../src/cancel.js';
import { AgentClient } from '../src/client.js';
import { connect } from '../src/dispatcher.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { ActionFailure, type FaultContext } from '../src/errors.js';
import type { Mode } from '../src/mode.js';
import { startJob } from '../src/start.js';
import type { Log } from '../src/log.js';
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

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return (error as Error).message;
}

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

  it('not after a 429 whose wait would pass the deadline', async () => {
    const { clock, client, options } = setUp(service.url, 5000);
    const before = service.count('create');
    service.script('create', { status: 429, headers: { 'retry-after': '60' } });
    expect(await failure(startJob(client, create, 'x', options))).toContain('rate limit (429) did not clear');
    expect(service.count('create') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
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

  it('never sooner than a second, whatever Retry-After says', async () => {
    const { clock, client, options } = setUp();
    const zero = { status: 429, headers: { 'retry-after': '0' } };
    service.script('create', zero, zero);
    await startJob(client, create, 'x', options);
    expect(clock.sleeps).toEqual([1000, 1000]);
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
    expect(await failure(startJob(client, create, 'x', options))).toContain(message);
    expect(service.count('create') - before).toBe(1);
    expect(clock.sleeps).toEqual([]);
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

  it('sends it again after a 429', async () => {
    const { clock, client, options } = setUp();
    const { job } = await startJob(client, create, 'x', options);
    const before = service.count('message');
    service.script('message', { status: 429, headers: { 'retry-after': '3' } });
    const started = await startJob(client, { kind: 'follow-up', jobId: job?.id ?? '' }, 'more', options);
    expect(started.settledAfter).toBe(clock.now() + 30_000);
    expect(service.count('message') - before).toBe(2);
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
    service.script('create', { delayMs: 5000, acted: true });
    const cancelled = new Cancelled('SIGTERM');
    setTimeout(() => controller.abort(cancelled), 100);
    await expect(startJob(client, create, 'x', { ...options, signal: controller.signal })).rejects.toBe(
      cancelled,
    );
  });
});
