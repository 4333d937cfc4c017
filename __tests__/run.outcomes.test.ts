// run() in process, with the environment and file-command files the runner gives a step, against
// the emulator over real sockets: the outcomes a workflow sees (docs/design.md §3.1, §3.2, §4, §5).
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  expectFailure,
  inputsFor,
  KEY,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 0 });

describe('a job that completes', () => {
  it('hands back jobId, status and prLink, and writes the summary', async () => {
    const service = await emulator({ activePolls: 2 });
    const result = await run({ inputs: inputsFor(service) });

    expect(result.code).toBe(0);
    expect(errors(result)).toEqual([]);
    const [id] = [...service.jobs.keys()];
    expect(result.outputs).toEqual({
      jobId: id,
      mode: 'created',
      status: 'completed',
      prLink: expect.stringMatching(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/),
      // Parsed from the link: a pull request on github.com.
      prNumber: expect.stringMatching(/^\d+$/),
      prRepository: 'acme/docs',
      job: expect.any(String),
      uses: '1',
    });
    // The job as the service last sent it, for fromJSON().
    expect(JSON.parse(result.outputs.job ?? '')).toEqual(service.jobs.get(id ?? ''));
    // Each output written once: jobId as soon as it was known, not again at the end.
    expect(result.files.match(/^jobId<</gm)).toHaveLength(1);
    expect(service.count('create')).toBe(1);
    expect(service.count('get')).toBe(3);
    expect(result.summary).toContain(`<code>${id}</code>`);
    expect(result.summary).toContain(`<a href="${result.outputs.prLink}">`);
    expect(result.summary).toContain('claude-sonnet-4');
    expect(result.summary).toContain('https://github.com/acme/docs');
    // A line when the status changes, not on every poll; the end said once, naming the job.
    expect(result.stdout.match(/is now completed/g)).toBeNull();
    expect(result.stdout.match(new RegExp(`^Agent job ${id} completed: `, 'gm'))).toHaveLength(1);
    const visible = result.stdout.split('\n').filter((line) => !line.startsWith('::debug::'));
    expect(visible.join('\n')).not.toMatch(/Polled/);
  });

  it('sends the key only as a bearer header, the prompt as written, and says who is calling', async () => {
    const service = await emulator();
    const prompt = 'Line one\n  "quoted" — ünïcode\ttab';
    await run({ inputs: inputsFor(service, { prompt: `  ${prompt}\n` }), env: { GITHUB_ACTION_REF: 'v1' } });
    const [create] = service.requests;
    expect(create?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(create?.json).toEqual({ prompt });
    expect(create?.headers['user-agent']).toMatch(
      /^agent-job-action\/v1 \(\+https:\/\/github\.com\/acme\/docs\/actions\/runs\/4242\)$/,
    );
    expect(create?.path).not.toContain(KEY);
  });

  it('works under a path prefix and percent-encodes the project id', async () => {
    const service = await emulator({ basePath: '/agent-api' });
    const result = await run({
      inputs: inputsFor(service, { projectId: 'team/docs?#%', baseUrl: `${service.url}/` }),
    });
    expect(result.code).toBe(0);
    expect(service.requests[0]?.path).toBe('/agent-api/v2/agent/team%2Fdocs%3F%23%25/job');
    expect(service.requests[0]?.projectId).toBe('team/docs?#%');
  });

  it('succeeds without a pull request when no files changed', async () => {
    const service = await emulator({ final: { status: 'completed', prLink: null } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe('');
    expect(result.stdout).toContain('completed without a pull request');
    expect(result.summary).toContain('none');
  });

  it("turns on debug lines with the runner's debug logging, still without the key", async () => {
    const service = await emulator();
    const result = await run({ inputs: inputsFor(service), env: { RUNNER_DEBUG: '1' } });
    expect(result.code).toBe(0);
    expect(result.commands.some((c) => c.name === 'debug' && c.data.includes('Polled agent job'))).toBe(true);
  });
});

describe('a job that does not complete', () => {
  it('fails the step when the job failed, with outputs and summary', async () => {
    const service = await emulator({ final: { status: 'failed' } });
    const result = await run({ inputs: inputsFor(service) });
    const [id] = [...service.jobs.keys()];
    expectFailure(result, `Agent job ${id} failed.`);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'failed', prLink: '' });
    expect(result.summary).toContain('failed');
  });

  it('fails the step when the job was archived', async () => {
    const service = await emulator({ final: { status: 'archived' } });
    const result = await run({ inputs: inputsFor(service) });
    const [id] = [...service.jobs.keys()];
    expectFailure(result, `Agent job ${id} was archived before it completed.`);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'archived' });
    expect(result.summary).toContain('archived before it completed');
  });

  it('times out with status active, outputs and summary, and says the job goes on', async () => {
    const service = await emulator({ activePolls: 1000 });
    const result = await run({ inputs: inputsFor(service, { timeout: '3s' }) });
    const [id] = [...service.jobs.keys()];
    expectFailure(
      result,
      `Agent job ${id} did not finish within 3s (last status: active); it goes on in the service.`,
    );
    expect(result.outputs).toMatchObject({ jobId: id, status: 'active', prLink: '' });
    expect(result.summary).toContain('did not finish within 3s');
    // Polls at 1s, 2.5s and one cut to land on the deadline.
    expect(service.count('get')).toBeGreaterThanOrEqual(2);
    expect(service.count('get')).toBeLessThanOrEqual(4);
  });

  it('keeps polling through a status it does not know, warning once', async () => {
    const service = await emulator();
    service.script(
      'get',
      { job: { status: 'paused' } },
      { job: { status: 'paused' } },
      { job: { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' } },
    );
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('completed');
    expect(warnings(result).filter((w) => w.includes('paused'))).toHaveLength(1);
    expect(result.stdout.match(/is now paused/g)).toHaveLength(1);
  });
});

describe('wait: false', () => {
  it('creates the job, sets the outputs and ends without polling', async () => {
    const service = await emulator();
    const result = await run({ inputs: inputsFor(service, { wait: 'false' }) });
    const [id] = [...service.jobs.keys()];
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'active', prLink: '' });
    expect(JSON.parse(result.outputs.job ?? '')).toMatchObject({ id, status: 'active' });
    expect(service.count('get')).toBe(0);
    expect(result.summary).toContain('active');
  });
});
