// What the runner's mask sees, through the bundle under Node 24: the runner masks only what the
// process printed in an `::add-mask::` line before, and only exact copies, so the order of the
// log and the exact text the action prints are what count. Every other echo is played in process,
// in run.secrets.test.ts.
import { describe, expect, it } from '@jest/globals';
import { emulators, gatewayEchoing, inputsFor, KEY, run, warnings } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 0 });

/** A printable ASCII key of the length that broke the mask before. */
const PLAIN_38 = 'mint_9fQ2xK7LwP3zR8vT1yN6bH4cJ5dM0sA2e';

describe('the key', () => {
  it('is masked before anything is printed, even when it is the bad input', async () => {
    const service = await emulator();
    const key = `${KEY} trailing-word`;
    const result = await run({ inputs: inputsFor(service, { apiKey: key }) });
    expect(result.code).toBe(1);
    const first = result.stdout.split('\n')[0];
    expect(first).toBe(`::add-mask::${key}`);
    const rest = `${result.stdout}\n${result.stderr}`.split('\n').slice(1);
    expect(rest.join('\n')).not.toContain('trailing-word');
  });

  // A key echoed back by the service (or a gateway in front of it) must not survive anywhere the
  // runner keeps, not even in part: the action shortens, quotes and escapes service text, and each
  // of those would turn the echo into something the runner's exact-match mask misses. `run` checks
  // every 12-character piece of the key, raw and with JSON, backslash, HTML and command escapes
  // undone.
  it('echoed in a gateway 503 on a poll: the warning says *** where the key was', async () => {
    const service = await emulator({ apiKey: PLAIN_38 });
    service.script('get', gatewayEchoing(PLAIN_38));
    const result = await run({ inputs: inputsFor(service, { apiKey: PLAIN_38 }) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('(token=***) is rate limited');
  });
});
