// Every row of the fault table (docs/design.md §3.4), through the bundled action against the emulator.
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { emulators, errors, expectFailure, inputsFor, KEY, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 1 });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('create', () => {
  it('waits out a 429 with Retry-After and tries again', async () => {
    const service = await emulator();
    service.script('create', {
      status: 429,
      headers: { 'retry-after': '1' },
      json: { error: 'Rate limit exceeded' },
    });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(service.count('create')).toBe(2);
    expect(service.jobs.size).toBe(1);
    expect(warnings(result)[0]).toContain('HTTP 429');
    expect(warnings(result)[0]).toContain('trying again in 1s');
    const [first, second] = service.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('backs off 2 s on a 429 without Retry-After', async () => {
    const service = await emulator();
    service.script('create', { status: 429, json: { error: 'Rate limit exceeded' } });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('trying again in 2s');
  });

  it('never retries a 429 faster than once a second, whatever Retry-After says', async () => {
    const service = await emulator();
    const zero = { status: 429, headers: { 'retry-after': '0' } };
    service.script('create', ...Array.from({ length: 50 }, () => zero));
    const result = await run({ inputs: inputsFor(service, { timeout: '3s' }) });
    expectFailure(result, "The service's rate limit (429) did not clear before the timeout");
    // It does try again (a run that never retried would pass a cap alone), once a second at most.
    expect(service.count('create')).toBeGreaterThanOrEqual(2);
    expect(service.count('create')).toBeLessThanOrEqual(4);
  });

  it('gives up on a 429 whose wait would pass the timeout', async () => {
    const service = await emulator();
    service.script('create', {
      status: 429,
      headers: { 'retry-after': '600' },
      json: { error: 'Rate limit exceeded' },
    });
    const result = await run({ inputs: inputsFor(service, { timeout: '5s' }) });
    expectFailure(result, "The service's rate limit (429) did not clear before the timeout");
    expect(service.count('create')).toBe(1);
    expect(result.outputs).toEqual({});
  });

  it('tries a refused connection 3 more times, 1, 2 and 4 s apart, then names the host', async () => {
    const port = await closedPort();
    const result = await run({
      inputs: { prompt: 'x', projectId: 'p', apiKey: KEY, baseUrl: `http://127.0.0.1:${port}` },
    });
    expectFailure(result, `Could not connect to 127.0.0.1:${port} (ECONNREFUSED) after 4 tries.`);
    expect(warnings(result).map((w) => /trying again in (\d+s)/.exec(w)?.[1])).toEqual(['1s', '2s', '4s']);
  });

  it.each([
    ['a 500', { status: 500, json: { error: 'Internal error' } }, 'HTTP 500'],
    ['a 503 even when the service acted', { status: 503, acted: true }, 'HTTP 503'],
    [
      'a connection reset after the request was sent',
      { drop: 'before-reply' as const, acted: true },
      'no complete answer',
    ],
    ['a reply cut off mid-body', { drop: 'mid-body' as const }, 'no complete answer'],
    [
      'a body that is not JSON',
      { status: 201, raw: '<html>gateway</html>' },
      'HTTP 201 with a body that is not a job',
    ],
    ['JSON that is not a job', { status: 201, json: { ok: true } }, 'HTTP 201 with a body that is not a job'],
  ])('does not retry %s: the job may exist', async (_name, reply, what) => {
    const service = await emulator();
    service.script('create', reply);
    const result = await run({ inputs: inputsFor(service) });
    expectFailure(result, what);
    expect(errors(result)[0]).toContain(
      'the job may have been created anyway, so the action does not send it again',
    );
    expect(errors(result)[0]).toContain('Look for a new agent job in project proj_docs');
    expect(service.count('create')).toBe(1);
  });

  it.each([
    [
      400,
      { error: 'prompt is too long' },
      'The service rejected the request to create the job as invalid (400). The service said: "prompt is too long".',
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
    [404, { error: 'Project not found' }, 'No project proj_docs at http://127.0.0.1:'],
    [409, { error: 'Conflict' }, 'The service answered 409 to the request to create the job.'],
  ])('fails at once on %d', async (status, json, message) => {
    const service = await emulator();
    service.script('create', { status, json });
    const result = await run({ inputs: inputsFor(service) });
    expectFailure(result, message);
    expect(service.count('create')).toBe(1);
  });

  it('stops retrying a refused connection at the timeout', async () => {
    const port = await closedPort();
    const result = await run({
      inputs: {
        prompt: 'x',
        projectId: 'p',
        apiKey: KEY,
        baseUrl: `http://127.0.0.1:${port}`,
        timeout: '2s',
      },
    });
    expectFailure(result, `Could not connect to 127.0.0.1:${port} (ECONNREFUSED) after 2 tries.`);
  });

  it('fails in words when the outputs cannot be written', async () => {
    const service = await emulator({ activePolls: 0 });
    const result = await run({
      inputs: inputsFor(service),
      env: { GITHUB_OUTPUT: '/nonexistent/dir/output' },
    });
    expectFailure(result, "Could not set the step's outputs");
  });

  it('rejects a wrong key with the 401 message (the emulator checks the key)', async () => {
    const service = await emulator();
    const result = await run({ inputs: inputsFor(service, { apiKey: 'mint_not_the_right_key' }) });
    expectFailure(result, 'The service rejected the API key (401)');
  });

  it('fails on an unknown project', async () => {
    const service = await emulator({ projects: ['other'] });
    const result = await run({ inputs: inputsFor(service) });
    expectFailure(result, 'No project proj_docs at');
  });
});
