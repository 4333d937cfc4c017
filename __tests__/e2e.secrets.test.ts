// A key echoed back by the service (or a gateway in front of it) must not survive anywhere the
// runner keeps, not even in part — once through the bundle under Node 24, where the runner's own
// mask sees the log (every other echo is played in process, in run.secrets.test.ts): the action
// shortens, quotes and escapes service text, and each of those would turn the echo into something
// the runner's exact-match mask misses. `run` checks every 12-character piece of the key, raw and
// with JSON, backslash, HTML and command escapes undone.
import { describe, expect, it } from '@jest/globals';
import { emulators, inputsFor, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 0 });

/** A printable ASCII key of the length that broke the mask before. */
const PLAIN_38 = 'mint_9fQ2xK7LwP3zR8vT1yN6bH4cJ5dM0sA2e';

describe('a key echoed by the service', () => {
  it('in a gateway 503 on a poll: the warning says *** where the key was', async () => {
    const service = await emulator({ apiKey: PLAIN_38 });
    service.script('get', {
      status: 503,
      json: {
        error: `Request rejected by edge gateway: the bearer token presented in the Authorization header (token=${PLAIN_38}) is rate limited`,
      },
    });
    const result = await run({ inputs: inputsFor(service, { apiKey: PLAIN_38 }) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('(token=***) is rate limited');
  });
});
