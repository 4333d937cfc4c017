// The poll loop with an injected clock against the emulator over real sockets: the waits it
// chooses, the deadline, Retry-After, and which faults it waits out (docs/design.md §3.3, §3.4).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from '../src/service/dispatcher.js';
import { AgentClient } from '../src/service/client.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { ActionFailure } from '../src/service/errors.js';
import type { AgentJob } from '../src/core/job.js';
import { recorder } from '../__fixtures__/log.js';
import { waitForJob, type WaitOptions } from '../src/execute/wait.js';
import { VirtualClock } from '../__fixtures__/clock.js';

const KEY = 'mint_wait_test_key';
let service: Emulator;
// The action's own dispatcher: it tells connect failures from later ones.
const { dispatcher } = connect('http://127.0.0.1');
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY, activePolls: 1000 });
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  await service.close();
  await dispatcher.close();
});

async function setUp(timeoutMs: number, pollIntervalMs = 10_000) {
  const client = new AgentClient({
    baseUrl: service.url,
    projectId: 'p',
    apiKey: KEY,
    dispatcher,
    userAgent: 't',
  });
  const job = await client.createJob('go');
  const clock = new VirtualClock();
  const log = recorder();
  const options: WaitOptions = {
    clock,
    deadline: clock.now() + timeoutMs,
    pollIntervalMs,
    createdAt: clock.now(),
    log,
    context: { operation: 'get', baseUrl: service.url, projectId: 'p' },
    random: () => 0.5,
  };
  const polls = () => service.requests.filter((r) => r.route === 'get' && r.jobId === job.id).length;
  const read = (call: { timeoutMs: number }) => client.getJob(job.id, call);
  return { job, clock, log, options, polls, read };
}

describe('waitForJob', () => {
  it('follows the growing schedule and cuts the last wait at the deadline', async () => {
    const { job, clock, options, polls, read } = await setUp(60_000);
    const result = await waitForJob(read, job.id, job, options);
    expect(result.timedOut).toBe(true);
    expect(clock.sleeps).toEqual([10_000, 15_000, 22_500, 12_500]);
    expect(clock.now()).toBe(options.deadline);
    expect(polls()).toBe(4);
  });

  it('returns at the first terminal status', async () => {
    const { job, options, read } = await setUp(600_000);
    service.script('get', {}, { job: { status: 'completed', prLink: 'https://github.com/a/b/pull/1' } });
    const seen: AgentJob[] = [];
    const result = await waitForJob(read, job.id, job, { ...options, onJob: (j) => seen.push(j) });
    expect(result).toMatchObject({ timedOut: false, job: { status: 'completed' } });
    expect(seen.map((j) => j.status)).toEqual(['active', 'completed']);
  });

  it('waits as long as Retry-After says, capped by the time left', async () => {
    const { job, clock, log, options, read } = await setUp(120_000);
    service.script(
      'get',
      { status: 503, headers: { 'retry-after': '20' } },
      { status: 429, headers: { 'retry-after': '3600' } },
    );
    const result = await waitForJob(read, job.id, job, options);
    expect(result.timedOut).toBe(true);
    expect(clock.sleeps.slice(0, 3)).toEqual([10_000, 20_000, 90_000]);
    // The warning says the wait it will take, not the hour the service asked for.
    expect(log.lines.filter((l) => l.startsWith('warning:'))).toEqual([
      expect.stringMatching(/HTTP 503 .*; trying again in 20s\.$/),
      expect.stringMatching(/HTTP 429 .*; trying again in 1m 30s\.$/),
    ]);
  });

  it('never polls sooner than the schedule because Retry-After says less', async () => {
    const { job, clock, options, read } = await setUp(600_000);
    service.script('get', { status: 429, headers: { 'retry-after': '3' } }, { job: { status: 'completed' } });
    await waitForJob(read, job.id, job, options);
    expect(clock.sleeps).toEqual([10_000, 15_000]);
  });

  it('backs off on the schedule after a fault without Retry-After', async () => {
    const { job, clock, log, options, read } = await setUp(40_000);
    service.script('get', { drop: 'before-reply' });
    await waitForJob(read, job.id, job, options);
    expect(clock.sleeps).toEqual([10_000, 15_000, 15_000]);
    expect(log.lines.filter((l) => l.startsWith('warning:'))).toEqual([
      expect.stringContaining('no complete answer'),
    ]);
  });

  it('rides out 408, 429, 5xx, dropped connections and bodies that are not jobs', async () => {
    const { job, clock, log, options, polls, read } = await setUp(600_000);
    service.script(
      'get',
      { status: 408 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 502, raw: 'Bad gateway' },
      { drop: 'before-reply' },
      { status: 200, raw: 'not json' },
      { status: 200, json: { id: 'x' } },
      { job: { status: 'completed' } },
    );
    const result = await waitForJob(read, job.id, job, options);
    expect(result).toMatchObject({ job: { status: 'completed' }, timedOut: false });
    expect(polls()).toBe(7);
    // After the 429: the schedule's wait, not the 1 s its Retry-After said.
    expect(clock.sleeps[2]).toBe(22_500);
    const warnings = log.lines.filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(6);
    expect(warnings[0]).toContain(`Could not read agent job ${job.id}: HTTP 408`);
  });

  // The virtual clock starts at 1_700_000_000 s (2023-11-14 22:13:20 UTC).
  it('keeps the polls on their schedule after a Retry-After of 0, gone by or absurd: no burst', async () => {
    const { job, clock, log, options, read } = await setUp(600_000, 1000);
    service.script(
      'get',
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': 'Tue, 14 Nov 2023 22:00:00 GMT' } },
      { status: 503, headers: { 'retry-after': '99999999999999999999' } },
      { status: 429, headers: { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' } },
      { job: { status: 'completed' } },
    );
    await waitForJob(read, job.id, job, options);
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375, 5063]);
    for (const line of log.lines) expect(line).not.toMatch(/Infinity|NaN/);
  });

  it("never takes a reply about another job as this job's end", async () => {
    const { job, clock, log, options, read } = await setUp(600_000);
    service.script('get', { json: { id: 'job_other', status: 'completed', prLink: 'https://x/pull/9' } });
    const seen: AgentJob[] = [];
    const result = await waitForJob(read, job.id, job, { ...options, onJob: (j) => seen.push(j) });
    // The emulator's own play goes on (active, for a long while): the wait ends at the timeout.
    expect(result).toMatchObject({ timedOut: true, job: { id: job.id, status: 'active' } });
    expect(seen.every((j) => j.id === job.id)).toBe(true);
    expect(log.lines.filter((l) => l.startsWith('warning:'))[0]).toBe(
      `warning: Could not read agent job ${job.id}: HTTP 200 with another job (job_other); trying again in 15s.`,
    );
    expect(clock.now()).toBe(options.deadline);
  });

  it('rides out a service that stops listening', async () => {
    const gone = await startEmulator({ apiKey: KEY, activePolls: 1000 });
    const client = new AgentClient({
      baseUrl: gone.url,
      projectId: 'p',
      apiKey: KEY,
      dispatcher,
      userAgent: 't',
    });
    const job = await client.createJob('go');
    await gone.close();
    const { clock, log, options } = await setUp(60_000);
    const result = await waitForJob((call) => client.getJob(job.id, call), job.id, job, {
      ...options,
      context: { ...options.context, baseUrl: gone.url },
    });
    expect(result.timedOut).toBe(true);
    expect(clock.now()).toBe(options.deadline);
    const warnings = log.lines.filter((l) => l.startsWith('warning:'));
    expect(warnings.length).toBe(4);
    expect(warnings[0]).toContain('no connection (ECONNREFUSED)');
  });

  it('after a follow-up, takes a terminal status only once the job was seen active, or after 30 s', async () => {
    const { job, clock, options, read } = await setUp(600_000);
    const stale = { job: { status: 'completed' } };
    service.script('get', stale, stale, stale);
    const finished = { ...job, status: 'completed' };
    const result = await waitForJob(read, job.id, finished, {
      ...options,
      settledAfter: clock.now() + 30_000,
    });
    expect(result.job?.status).toBe('completed');
    // Polls at 10 s and 25 s are inside the grace; the one at 47.5 s is taken.
    expect(clock.sleeps).toEqual([10_000, 15_000, 22_500]);
  });

  it('after a follow-up, a timeout shorter than the grace: a job that still reads done is done, at the timeout', async () => {
    const { job, clock, log, options, polls, read } = await setUp(5_000, 1000);
    const stale = { job: { status: 'completed' } };
    service.script('get', stale, stale, stale, stale);
    const finished = { ...job, status: 'completed' };
    const result = await waitForJob(read, job.id, finished, {
      ...options,
      settledAfter: clock.now() + 30_000,
    });
    expect(result).toMatchObject({ timedOut: false, job: { status: 'completed' } });
    expect(clock.now()).toBe(options.deadline);
    expect(polls()).toBe(4);
    expect(log.lines).toContain(
      `info: Agent job ${job.id} still reads completed at the timeout and was not seen at work on the follow-up: this may be how it ended before the message.`,
    );
  });

  it('after a follow-up whose reply said active, takes the next terminal status at once', async () => {
    const { job, clock, options, read } = await setUp(600_000);
    service.script('get', { job: { status: 'completed' } });
    const result = await waitForJob(
      read,
      job.id,
      { ...job, status: 'active' },
      {
        ...options,
        settledAfter: clock.now() + 30_000,
      },
    );
    expect(result.job?.status).toBe('completed');
    expect(clock.sleeps).toEqual([10_000]);
  });

  it('forgives a 404 in the first 30 s but not after', async () => {
    const { job, options, read } = await setUp(600_000);
    service.script('get', { status: 404 }, { status: 404 }, { status: 404 });
    // Polls at 10 s and 25 s are early; the one at 47.5 s is not.
    await expect(waitForJob(read, job.id, job, options)).rejects.toThrow(
      new ActionFailure(
        `Agent job ${job.id} was not found in project p at ${service.url} (404). The service said: "Job not found".`,
      ),
    );
  });

  it('fails at once on a 401', async () => {
    const { job, options, polls, read } = await setUp(600_000);
    service.script('get', { status: 401 });
    await expect(waitForJob(read, job.id, job, options)).rejects.toThrow(
      'The service rejected the API key (401)',
    );
    expect(polls()).toBe(1);
  });

  it.each([
    [
      403,
      "The API key may not read this job (403): this runner's IP address may not be on the key's allowlist.",
    ],
    [400, 'The service rejected the request for the job as invalid (400). The service said: "bad id".'],
    [410, 'The service answered 410 to the request for the job.'],
  ])('fails at once on a %d, in words that say what to fix', async (status, message) => {
    const { job, options, polls, read } = await setUp(600_000);
    service.script('get', { status, json: { error: 'bad id' } });
    await expect(waitForJob(read, job.id, job, options)).rejects.toThrow(message);
    expect(polls()).toBe(1);
  });

  it('says every two minutes that a job is still at work, from a timer beside the polls', async () => {
    // Polls every 100 s: a mark at 2 minutes falls between two of them, and is still said.
    const { job, log, options, read } = await setUp(600_000, 100_000);
    service.script(
      'get',
      { job: { status: 'active' } },
      { job: { status: 'active' } },
      { job: { status: 'completed' } },
    );
    const result = await waitForJob(read, job.id, job, { ...options, random: () => 0.5 });
    expect(result.job?.status).toBe('completed');
    expect(log.lines).toEqual([
      `info: Agent job ${job.id} is still active after 2m; checking again in 1m 20s.`,
      `info: Agent job ${job.id} is still active after 4m; checking again in 1m.`,
    ]);
  });

  it('logs a status change once and warns once per unknown status', async () => {
    const { job, log, options, read } = await setUp(600_000);
    service.script(
      'get',
      { job: { status: 'queued' } },
      { job: { status: 'queued' } },
      { job: { status: 'active' } },
      { job: { status: 'failed' } },
    );
    const result = await waitForJob(read, job.id, job, options);
    expect(result.job?.status).toBe('failed');
    expect(log.lines).toEqual([
      `info: Agent job ${job.id} is now queued.`,
      `warning: Agent job ${job.id} reports the status queued, which this action does not know; it is treated as still running.`,
      `info: Agent job ${job.id} is now active.`,
    ]);
  });

  it('stops at once when its signal aborts', async () => {
    const { job, options, read } = await setUp(600_000);
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(waitForJob(read, job.id, job, { ...options, signal: controller.signal })).rejects.toThrow(
      'cancelled',
    );
  });
});
