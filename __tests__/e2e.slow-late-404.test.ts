// A 404 that comes after the 30 s grace: the fault row that takes the contract's own time to
// show, in a file of its own so it runs beside the other slow one.
import { describe, expect, it } from '@jest/globals';
import { emulators, expectFailure, inputsFor, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators();

describe('faults that take 30 s', () => {
  it('fails at once on a 404 more than 30 s after creation', async () => {
    const service = await emulator({ activePolls: 1000 });
    // Polls at about 1, 2.5, 4.8, 8.1, 13.2, 20.8 and 32.2 s: the seventh is past the grace.
    service.script('get', { status: 404 }, {}, {}, {}, {}, {}, { status: 404 });
    const result = await run({ inputs: inputsFor(service, { timeout: '2m' }), killAfterMs: 55_000 });
    const [id] = [...service.jobs.keys()];
    expectFailure(result, `Agent job ${id} was not found in project proj_docs at ${service.url} (404).`);
    expect(warnings(result)).toEqual([expect.stringContaining('HTTP 404')]);
    expect(service.count('get')).toBe(7);
    expect(result.outputs).toMatchObject({ jobId: id, status: 'active' });
  }, 60_000);

  it('treats a poll that times out as transient and still honours the step timeout', async () => {
    const service = await emulator({ activePolls: 1000 });
    service.script('get', { delayMs: 20_000 });
    const result = await run({ inputs: inputsFor(service, { timeout: '6s' }) });
    expectFailure(result, 'did not finish within 6s');
    // Near the deadline the poll's whole exchange is cut to the time left.
    expect(warnings(result)[0]).toMatch(/no complete answer \((UND_ERR_HEADERS_TIMEOUT|request timeout)\)/);
  }, 30_000);
});
