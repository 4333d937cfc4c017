// The fault rows that only real time can show: a create that gets no answer within the 30 s
// per-request timeout, and a poll cut short at the step's deadline. In a file of their own so jest
// runs them beside the others. (The 30 s grace for a new job's 404 is a rule of the action's clock:
// wait.test.ts and main.test.ts check it on the virtual clock.)
import { describe, expect, it } from '@jest/globals';
import { emulators, errors, expectFailure, inputsFor, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators();

describe('faults that take real time', () => {
  it('does not retry a create that timed out after it was sent', async () => {
    const service = await emulator();
    service.script('create', { delayMs: 40_000, acted: true });
    const result = await run({ inputs: inputsFor(service, { timeout: '2m' }), killAfterMs: 55_000 });
    expectFailure(result, 'no complete answer (UND_ERR_HEADERS_TIMEOUT) to the request to create the job');
    expect(errors(result)[0]).toContain('the job may have been created anyway');
    expect(service.count('create')).toBe(1);
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
