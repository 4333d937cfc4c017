// `context: auto` cancelled while it gathers, through the bundle under Node 24 against both
// emulators: the runner's SIGINT needs a process (the rest of context and promptFile run in
// process, in run.context.test.ts).
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  runAndSignal,
  warnings,
} from '../__fixtures__/e2e.js';
import { gitHubEnv, pushEvent, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

const HEAD = 'c0ffee0000000000000000000000000000000001';
const BASE = 'ba5e000000000000000000000000000000000000';

describe('context: auto', () => {
  it('cancelled while gathering: nothing was sent, and no GitHub warning', async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    gh.hold('compare');
    const { result } = await runAndSignal(
      {
        inputs: inputsFor(service, { context: 'auto' }),
        env: gitHubEnv(gh),
        event: pushEvent(HEAD, { before: BASE }),
      },
      () => gh.count('compare') > 0,
      'SIGINT',
    );
    expectFailure(result, 'The step was cancelled (SIGINT) before anything was sent to the service.');
    expect(warnings(result)).toEqual([]);
    expect(service.requests).toEqual([]);
  });
});
