// run() with @actions/core replaced by typed fakes and the clock injected, against the emulator
// over real sockets: the order of work (docs/design.md §3.1) without waiting in real time.
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { startEmulator, type Emulator } from '../src/emulator/server.js';

jest.unstable_mockModule('@actions/core', () => core);
const { run } = await import('../src/main.js');

const KEY = 'mint_main_test_key';
let service: Emulator;
let inputs: Record<string, string>;
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY, activePolls: 3 });
});
afterAll(async () => {
  await service.close();
});
beforeEach(() => {
  jest.clearAllMocks();
  inputs = {
    prompt: 'Update the SDK pages',
    projectId: 'p',
    apiKey: KEY,
    baseUrl: service.url,
    wait: 'true',
    timeout: '30m',
    pollInterval: '10s',
    comment: 'false',
    context: 'none',
    contextLimit: '20000',
  };
  core.getInput.mockImplementation((name) => inputs[name] ?? '');
});

/** Every call to the fake core, in order, as `name(args)`. */
function calls(): string[] {
  const all = Object.entries(core).flatMap(([name, fn]) =>
    'mock' in fn
      ? fn.mock.calls.map((args, i) => ({ name, args, order: fn.mock.invocationCallOrder[i] ?? 0 }))
      : [],
  );
  return all
    .sort((a, b) => a.order - b.order)
    .map(({ name, args }) => `${name}(${args.map(String).join(', ')})`);
}

describe('run', () => {
  it('masks the key before anything else, sets jobId before polling, and outputs at the end', async () => {
    const clock = new VirtualClock();
    const before = service.requests.length;
    await run(clock);
    const order = calls().filter(
      (c) => !c.startsWith('getInput') && !c.startsWith('debug') && !c.startsWith('isDebug'),
    );
    expect(order[0]).toBe(`setSecret(${KEY})`);
    const jobId = service.requests[before]?.route === 'create' ? [...service.jobs.keys()].at(-1) : undefined;
    expect(order.indexOf(`setOutput(jobId, ${jobId})`)).toBeLessThan(
      order.findIndex((c) => c.includes('is now')),
    );
    expect(order.slice(-4)).toEqual([
      `setOutput(jobId, ${jobId})`,
      'setOutput(status, completed)',
      expect.stringMatching(/^setOutput\(prLink, https:\/\/github\.com\/acme\/docs\/pull\/\d+\)$/),
      expect.stringMatching(/^setOutput\(job, \{"id":"job_\w+","status":"completed",.*\}\)$/),
    ]);
    expect(core.setFailed).not.toHaveBeenCalled();
    expect(clock.sleeps).toHaveLength(4);
  });

  it('skips the summary when there is no summary file (a local run)', async () => {
    delete process.env.GITHUB_STEP_SUMMARY;
    await run(new VirtualClock());
    expect(core.summary.write).not.toHaveBeenCalled();
  });

  it('writes the summary with the failure when the job fails', async () => {
    process.env.GITHUB_STEP_SUMMARY = '/dev/null';
    service.script('create', { job: { status: 'failed' } });
    await run(new VirtualClock());
    expect(core.setFailed).toHaveBeenCalledTimes(1);
    expect(core.setFailed.mock.calls[0]?.[0]).toMatch(/^Agent job job_\w+ failed\.$/);
    expect(core.summary.addRaw).toHaveBeenCalledWith(expect.stringContaining('failed.'), true);
    expect(core.summary.write).toHaveBeenCalledTimes(1);
    delete process.env.GITHUB_STEP_SUMMARY;
  });

  it('turns a thrown non-Error into one failure line', async () => {
    core.info.mockImplementationOnce(() => {
      // A non-Error on purpose: the one failure line must hold whatever was thrown.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw 'a string, not an Error';
    });
    await run(new VirtualClock());
    expect(core.setFailed).toHaveBeenCalledWith(
      'The action failed unexpectedly: a string, not an Error. Re-run the job with debug logging enabled for details.',
    );
  });
});
