// The fault rows that take the contract's own 30 s to show: a create that gets no answer within
// the per-request timeout, and a 404 that comes after the 30 s grace. Kept in their own file so
// jest runs them beside the others.
import { describe, expect, it } from '@jest/globals';
import { emulators, errors, expectFailure, inputsFor, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators();

describe('faults that take 30 s', () => {
  it('does not retry a create that timed out after it was sent', async () => {
    const service = await emulator();
    service.script('create', { delayMs: 40_000, acted: true });
    const result = await run({ inputs: inputsFor(service, { timeout: '2m' }), killAfterMs: 55_000 });
    expectFailure(result, 'no complete answer (UND_ERR_HEADERS_TIMEOUT) to the request to create the job');
    expect(errors(result)[0]).toContain('the job may have been created anyway');
    expect(service.count('create')).toBe(1);
  }, 60_000);

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
