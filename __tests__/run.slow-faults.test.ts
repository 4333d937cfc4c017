// The fault row that only real time can show, with run() in this process: a create that gets no
// answer within the 30 s per-request timeout (undici's own timers, which no injected clock
// moves). In a file of its own so jest runs it beside the others. (The 30 s grace for
// a new job's 404 is a rule of the action's clock: wait.test.ts and main.test.ts check it on the
// virtual clock.)
import { describe, expect, it } from '@jest/globals';
import { emulators, errors, inputsFor, runHere } from '../__fixtures__/e2e.js';

const emulator = emulators();

describe('a fault that takes the request timeout', () => {
  it('does not retry a create that timed out after it was sent', async () => {
    const service = await emulator();
    service.script('create', { hold: true, acted: true });
    const result = await runHere({ inputs: inputsFor(service, { timeout: '2m' }) });
    expect(result.code).toBe(1);
    // undici's header timer ticks once a second, so the exchange's own 31 s bound may fire first:
    // either way, no complete answer.
    expect(errors(result)).toEqual([
      expect.stringMatching(
        /no complete answer \((UND_ERR_HEADERS_TIMEOUT|request timeout)\) to the request to create the job: the job may have been created anyway/,
      ),
    ]);
    expect(service.count('create')).toBe(1);
  });
});
