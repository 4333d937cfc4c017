// The fault rows that take the contract's own 30 s to show: a create that gets no answer within
// the per-request timeout, and a 404 that comes after the 30 s grace. Kept in their own file so
// jest runs them beside the others.
import { describe, expect, it } from '@jest/globals';
import { emulators, errors, expectFailure, inputsFor, run } from '../__fixtures__/e2e.js';

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
});
