// The second step on its own: `execute` over a plain fake of the service's client and of what it
// writes on GitHub, on the virtual clock, with @actions/core's outputs recorded. What it sends for
// a decision, when it tells GitHub the job exists, how it waits, what gives way to a new job and
// what never is sent twice, and what it hands the report.
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { recorder } from '../__fixtures__/log.js';
import type { Decision } from '../src/decide/decide.js';
import type { Memory, ThreadNote } from '../src/core/ports.js';

jest.unstable_mockModule('@actions/core', () => core);
// After the mock: each of these reaches src/core/secrets.ts or src/report/outputs.ts, which must see it.
const { execute } = await import('../src/execute/execute.js');
const { ActionFailure } = await import('../src/service/errors.js');
const { readInputs } = await import('../src/decide/inputs.js');
const { JobRun } = await import('../src/execute/job-run.js');
const { fakeService, fakeWrites } = await import('../__fixtures__/ports.js');
type ServiceScript = import('../__fixtures__/ports.js').ServiceScript;

const BASE: Record<string, string> = {
  prompt: 'Document the change.',
  projectId: 'proj',
  apiKey: 'mint_execute_key',
  baseUrl: 'https://api.example.com',
  wait: 'true',
  timeout: '10m',
  pollInterval: '10s',
};
const PR_LINK = 'https://github.com/acme/docs/pull/4';
const NOTE: ThreadNote = { job: 'job-7', head: '1'.repeat(40), run: 41, attempt: 1 };
type Go = Extract<Decision, { kind: 'go' }>;
const CREATE: Go = {
  kind: 'go',
  mode: { kind: 'create', projectId: 'proj' },
  prompt: 'Document it.',
  memory: {},
};
/** A follow-up to the thread's job, whose replacement would get the whole context. */
const FOLLOW_UP: Go = {
  kind: 'go',
  mode: { kind: 'follow-up', jobId: 'job-7' },
  prompt: 'Changed since 1111111.',
  memory: { note: NOTE },
  replacement: { jobId: 'job-7', prLink: PR_LINK, prompt: async () => 'The whole pull request.' },
};
const http = (status: number) => ({ fault: { kind: 'http' as const, status } });
/** A create of job-1 until GitHub is told: its outputs come first, so a later step sees the id. */
const CREATED = ['create', 'output jobId=job-1', 'output mode=created', 'started job-1'];

beforeEach(() => {
  jest.clearAllMocks();
});

/**
 * `execute` for `decision` over the fakes, as run() calls it; `timeline` tells the order of the
 * service's calls, the outputs written and GitHub's "job exists".
 */
async function executed(decision: Go, script: ServiceScript, given: Record<string, string> = {}) {
  const values = { ...BASE, ...given };
  const inputs = readInputs((name) => values[name] ?? '', undefined, {});
  const timeline: string[] = [];
  core.setOutput.mockImplementation((name, value) => {
    timeline.push(`output ${name}=${String(value)}`);
  });
  const service = fakeService(script, timeline);
  const writes = fakeWrites(timeline);
  const log = recorder();
  const clock = new VirtualClock();
  const step = new JobRun(clock, new AbortController().signal, clock.now());
  step.accepted(inputs);
  const result = await execute(decision, inputs, step, {
    client: service,
    log,
    github: Promise.resolve(writes),
    context: { operation: 'create', baseUrl: inputs.baseUrl, projectId: inputs.projectId },
  });
  return { result, step, timeline, service: service.calls, writes: writes.calls, log: log.lines };
}

describe('a create', () => {
  it('sends the prompt, reports the jobId, tells GitHub the job exists, then waits for its end', async () => {
    const { result, step, timeline, service, writes, log } = await executed(CREATE, {
      create: [{ id: 'job-1', status: 'active' }],
      get: [
        { id: 'job-1', status: 'active' },
        { id: 'job-1', status: 'completed', prLink: PR_LINK },
      ],
    });
    expect(timeline).toEqual([...CREATED, 'get job-1', 'get job-1']);
    expect(service[0]).toEqual(['create', 'Document it.']);
    expect(writes).toEqual([
      { jobId: 'job-1', job: { id: 'job-1', status: 'active' }, memory: {}, handed: expect.any(Object) },
    ]);
    expect(result).toEqual({ jobId: 'job-1', github: writes[0]?.handed });
    expect(step.job).toEqual({ id: 'job-1', status: 'completed', prLink: PR_LINK });
    expect(step.failure).toBeUndefined();
    expect(log.at(-1)).toBe(`info: Agent job job-1 completed: ${PR_LINK}`);
  });

  it('is never sent twice after a 5xx: the fault is handed on in failed, with no jobId', async () => {
    const { result, timeline, writes } = await executed(CREATE, { create: [http(502)] });
    expect(timeline).toEqual(['create']);
    expect(writes).toEqual([]);
    expect(result).toEqual({ failed: { error: expect.any(ActionFailure) } });
    const error = result.failed?.error;
    expect(error instanceof ActionFailure ? error.fault : undefined).toEqual({ kind: 'http', status: 502 });
  });

  it('keeps the jobId and what GitHub was told when waiting fails', async () => {
    const { result, timeline, writes } = await executed(CREATE, {
      create: [{ id: 'job-1', status: 'active' }],
      get: [http(401)],
    });
    expect(timeline).toEqual([...CREATED, 'get job-1']);
    expect(result).toEqual({
      jobId: 'job-1',
      github: writes[0]?.handed,
      failed: { error: expect.any(ActionFailure) },
    });
  });
});

describe('a follow-up', () => {
  it.each([400, 404, 409, 410, 422])(
    'refused outright (%i) gives way to one create with the replacement prompt',
    async (status) => {
      const { result, step, service, writes, timeline, log } = await executed(FOLLOW_UP, {
        message: [http(status)],
        create: [{ id: 'job-8', status: 'active' }],
        get: [{ id: 'job-8', status: 'completed', prLink: PR_LINK }],
      });
      expect(service).toEqual([
        ['message', 'job-7', 'Changed since 1111111.'],
        ['create', 'The whole pull request.'],
        ['get', 'job-8'],
      ]);
      expect(timeline).toContain('output mode=created');
      expect(writes.map(({ jobId, memory }) => ({ jobId, memory }))).toEqual([
        { jobId: 'job-8', memory: { note: NOTE } },
      ]);
      expect(result).toEqual({ jobId: 'job-8', github: writes[0]?.handed });
      const memory: Memory = { note: NOTE };
      expect(step.outcome(memory).replaced).toEqual({ jobId: 'job-7', prLink: PR_LINK });
      expect(log).toContain(
        `info: The service no longer takes messages for agent job job-7 (it answered HTTP ${status}); a new job continues the thread. The run's end says what becomes of the docs pull request ${PR_LINK} that job job-7 named.`,
      );
    },
  );

  it('answered with a 5xx is not replaced: the message may have reached the job', async () => {
    const { result, service, writes } = await executed(FOLLOW_UP, { message: [http(503)] });
    expect(service).toEqual([['message', 'job-7', 'Changed since 1111111.']]);
    expect(writes).toEqual([]);
    expect(result).toEqual({ failed: { error: expect.any(ActionFailure) } });
  });

  it('to a job the workflow named is not replaced when refused', async () => {
    const named: Go = { kind: 'go', mode: FOLLOW_UP.mode, prompt: 'Changed since 1111111.', memory: {} };
    const { result, service } = await executed(named, { message: [http(404)] });
    expect(service).toEqual([['message', 'job-7', 'Changed since 1111111.']]);
    expect(result).toEqual({ failed: { error: expect.any(ActionFailure) } });
  });
});

describe('wait: false', () => {
  it('reports the created job as the service sent it, tells GitHub nothing, and reads nothing more', async () => {
    const { result, step, timeline, log } = await executed(
      CREATE,
      { create: [{ id: 'job-1', status: 'active' }] },
      { wait: 'false' },
    );
    expect(timeline).toEqual(['create', 'output jobId=job-1', 'output mode=created']);
    expect(result).toEqual({ jobId: 'job-1' });
    expect(step.job).toEqual({ id: 'job-1', status: 'active' });
    expect(log.at(-1)).toBe('info: Agent job job-1 goes on in the service (wait is false).');
  });

  it('reads a job it only waits on once', async () => {
    const given: Go = { kind: 'go', mode: { kind: 'wait', jobId: 'job-3' }, memory: {} };
    const { result, step, timeline } = await executed(
      given,
      { get: [{ id: 'job-3', status: 'active' }] },
      { wait: 'false', prompt: '', jobId: 'job-3' },
    );
    expect(timeline).toEqual(['output jobId=job-3', 'output mode=given', 'get job-3']);
    expect(result).toEqual({ jobId: 'job-3' });
    expect(step.job).toEqual({ id: 'job-3', status: 'active' });
  });
});
