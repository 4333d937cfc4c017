// The poll's faults: run() in process, as the runner starts a step, against the emulator over real
// sockets, one of each kind (every row, on the virtual clock, is in wait.test.ts), and text from the
// service that must not become a command.
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
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';

const emulator = emulators({ activePolls: 0 });

describe('poll', () => {
  it('rides out a gateway error and a body that is not a job', async () => {
    const service = await emulator({ activePolls: 0 });
    service.script('get', { status: 502, raw: 'Bad gateway' }, { status: 200, raw: 'not json' });
    const result = await run({ inputs: inputsFor(service, { timeout: '60s' }) });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('completed');
    expect(warnings(result)).toHaveLength(2);
    expect(warnings(result)[0]).toContain('Could not read agent job');
    expect(service.count('get')).toBe(3);
  });

  it("never takes a reply about another job as this job's end", async () => {
    const service = await emulator({ activePolls: 1 });
    service.script('get', { json: { id: 'job_other', status: 'failed' } });
    const result = await run({ inputs: inputsFor(service) });
    const [id] = [...service.jobs.keys()];
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([
      expect.stringContaining(`Could not read agent job ${id}: HTTP 200 with another job (job_other)`),
    ]);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'completed' });
    expect(JSON.parse(result.outputs.job ?? '')).toMatchObject({ id, status: 'completed' });
    expect(service.count('get')).toBe(3);
  });

  it('forgives a 404 right after creation', async () => {
    const service = await emulator();
    service.script('get', { status: 404, json: { error: 'Job not found' } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('HTTP 404');
  });

  it('fails at once on a 401, keeping the outputs of the job', async () => {
    const service = await emulator();
    service.script('get', { status: 401, json: { error: 'Invalid API key' } });
    const result = await run({ inputs: inputsFor(service) });
    const [id] = [...service.jobs.keys()];
    expectFailure(result, 'The service rejected the API key (401)');
    expect(service.count('get')).toBe(1);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'active' });
    expect(result.summary).toContain(id);
  });

  it('treats a poll that times out as transient and still honours the step timeout', async () => {
    const service = await emulator({ activePolls: 1000 });
    service.script('get', { hold: true });
    const result = await run({ inputs: inputsFor(service, { timeout: '6s' }) });
    expectFailure(result, 'did not finish within 6s');
    // Near the deadline the poll's whole exchange is cut to the time left.
    expect(warnings(result)[0]).toMatch(/no complete answer \((UND_ERR_HEADERS_TIMEOUT|request timeout)\)/);
  });
});

describe('text from the service', () => {
  it('cannot start a workflow command, in errors or in logs', async () => {
    const service = await emulator();
    const evil = 'nope\n::error::injected\r\n::add-mask::everything\u2028::warning::more';
    service.script('get', { job: { status: '::warning::status' } });
    service.script('get', { status: 400, json: { error: evil } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(1);
    const names = result.commands.map((c) => c.name);
    expect(names.filter((n) => n === 'error')).toHaveLength(1);
    expect(names).not.toContain('stop-commands');
    expect(result.commands.filter((c) => c.name === 'add-mask')).toEqual([
      { name: 'add-mask', data: KEY },
      { name: 'add-mask', data: WORKFLOW_TOKEN },
    ]);
    expect(result.commands.some((c) => c.data.startsWith('injected') || c.data.startsWith('more'))).toBe(
      false,
    );
    expect(errors(result)[0]).toContain('"nope\\u000a::error::injected');
  });

  it('cannot start a workflow command through a prLink, in the log or the outputs', async () => {
    const evil = 'https://x/pull/1\n::error::INJECTED\n::add-mask::Agent\n::stop-commands::tok';
    const service = await emulator({ final: { status: 'completed', prLink: evil } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(result.commands.filter((c) => c.name !== 'debug').map((c) => c.name)).toEqual([
      'add-mask',
      'add-mask',
      'warning',
    ]);
    expect(result.commands.filter((c) => c.name === 'add-mask').map((c) => c.data)).toEqual([
      KEY,
      WORKFLOW_TOKEN,
    ]);
    expect(warnings(result)[0]).toContain('The prLink "https://x/pull/1\\u000a::error::INJECTED');
    expect(result.stdout).toContain('completed: "https://x/pull/1\\u000a::error::INJECTED');
    // A later step's `echo "$PR_LINK"` would print those lines for the runner to obey: no link.
    expect(result.outputs.prLink).toBe('');
    expect(result.outputs.job).toContain(JSON.stringify(evil));
    expect(result.summary).not.toContain('<a href="https://x/pull');
    expect(result.summary).not.toMatch(/\n\s*\n/);
  });

  it('renders a prLink as a link only when it is http(s), and escapes HTML in the summary', async () => {
    const service = await emulator({ final: { status: 'completed', prLink: 'javascript:alert(1)' } });
    service.script('create', { job: { model: '<img src=x onerror=alert(1)>' } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe('');
    expect(warnings(result)).toEqual([
      'The prLink "javascript:alert(1)" is not a plain http(s) URL; the prLink output is left empty.',
    ]);
    expect(result.summary).not.toContain('href="javascript');
    expect(result.summary).not.toContain('<img');
    expect(result.summary).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
