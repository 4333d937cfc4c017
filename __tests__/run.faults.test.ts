// The create's faults: run() in process, as the runner starts a step, against the emulator over real
// sockets: one of each kind (docs/design.md §3.4). Every row of the table, on the virtual clock, is
// in start.test.ts.
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { VirtualClock } from '../__fixtures__/clock.js';
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
      headers: { 'retry-after': '3' },
      json: { error: 'Rate limit exceeded' },
    });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(service.count('create')).toBe(2);
    expect(service.jobs.size).toBe(1);
    expect(warnings(result)[0]).toContain('HTTP 429');
    expect(warnings(result)[0]).toContain('trying again in 3s');
    const [first, second] = service.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(2900);
  });

  // A project over its quota for good, on the virtual clock: whatever the 429's headers say, the
  // creates come 2, 4, 8, 16 and 32 s apart and stop after about a minute, not every second until
  // a 30-minute timeout. The clock starts at 1_700_000_000 s (2023-11-14 22:13:20 UTC).
  it.each([
    ['Retry-After: 0', { 'retry-after': '0' }],
    ['a Retry-After date gone by', { 'retry-after': 'Tue, 14 Nov 2023 22:00:00 GMT' }],
    ['an X-RateLimit-Reset gone by', { 'x-ratelimit-reset': '1699999000' }],
    ['an absurd Retry-After', { 'retry-after': '99999999999999999999' }],
    ['a Retry-After in the year 9999', { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }],
  ])(
    'on 429s with %s, sends a handful of creates in the first minute, then fails',
    async (_what, headers) => {
      const clock = new VirtualClock();
      const start = clock.now();
      const sentAt: number[] = [];
      const service = await emulator({
        rateLimit: { headers },
        onReply: (request) => void (request.route === 'create' && sentAt.push(clock.now() - start)),
      });
      const result = await run({ inputs: inputsFor(service, { timeout: '30m' }) }, { clock });
      expectFailure(result, 'the reply gave no usable time for when the oldest use ages out');
      expect(sentAt).toEqual([0, 2000, 6000, 14_000, 30_000, 62_000]);
      expect(sentAt.filter((at) => at < 60_000)).toHaveLength(5);
      expect(result.outputs).toMatchObject({ mode: 'created', status: 'not-started' });
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/Infinity|NaN/);
    },
  );

  it.each([
    ['a 500', { status: 500, json: { error: 'Internal error' } }, 'HTTP 500'],
    [
      'a connection reset after the request was sent',
      { drop: 'before-reply' as const, acted: true },
      'no complete answer',
    ],
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
