// Bad input as the runner passes it (INPUT_* variables read by the real @actions/core), with run()
// in this process: one error that names the input, and not a single request (docs/design.md §3.1,
// §6). That the key is masked before anything is printed is shown by the bundle, in
// e2e.masking.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { expectFailure, inputsFor, KEY, runHere as run } from '../__fixtures__/e2e.js';
import { pullRequestEvent } from '../__fixtures__/github-world.js';

let service: Emulator;
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY });
});
afterAll(async () => {
  await service.close();
});

describe('bad input', () => {
  // A few as the runner passes them (main.test.ts has every rule, with @actions/core mocked).
  it.each([
    ['no prompt', { prompt: '' }, 'Input "prompt" is required'],
    // The runner's getInput trims: spaces alone are no prompt.
    ['a prompt of spaces only', { prompt: '  \n ' }, 'Input "prompt" is required'],
    [
      'an apiKey with a line break',
      { apiKey: `${KEY}\nX-Injected: 1` },
      'Input "apiKey" may only hold printable ASCII characters',
    ],
    ['a sub-second pollInterval', { pollInterval: '0' }, 'Input "pollInterval" must be at least 1s'],
    [
      'a trigger the docs service answers itself',
      { trigger: '@mintlify' },
      'Input "trigger" starts with @mintlify, which the docs service answers itself',
    ],
  ])('%s fails before any request', async (_name, overrides, message) => {
    const before = service.requests.length;
    const result = await run({ inputs: inputsFor(service, overrides) });
    expectFailure(result, message);
    expect(service.requests.length).toBe(before);
    expect(result.outputs).toEqual({});
    expect(result.summary).toBe('');
  });

  it('does not echo a baseUrl that carries credentials', async () => {
    const result = await run({
      inputs: inputsFor(service, { baseUrl: 'https://admin:hunter2@api.example.com' }),
    });
    // Refused as a bad input, not merely unreachable: without the rule, the key would go there.
    expectFailure(result, 'Input "baseUrl" must not contain a user name or password.');
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it('says why apiKey is empty on a pull request from a fork, and how to skip such runs', async () => {
    const before = service.requests.length;
    const result = await run({
      inputs: inputsFor(service, { apiKey: '' }),
      event: pullRequestEvent(7, 'someone/app'),
    });
    expectFailure(
      result,
      'Input "apiKey" is empty: this run is for a pull request from the fork "someone/app", and GitHub passes no secrets to runs for pull requests from forks. Skip such runs with if: github.event.pull_request == null || github.event.pull_request.head.repo.full_name == github.repository',
    );
    expect(service.requests.length).toBe(before);
  });
});

describe('a run GitHub starts for Dependabot', () => {
  it('with the key empty (Dependabot gets no Actions secrets) ends skipped with a notice, and sends nothing', async () => {
    const before = service.requests.length;
    const result = await run({
      inputs: inputsFor(service, { apiKey: '', thread: 'true', wait: 'false' }),
      env: { GITHUB_ACTOR: 'dependabot[bot]' },
      event: pullRequestEvent(7, 'acme/app'),
    });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(result.commands).toContainEqual(
      expect.objectContaining({
        name: 'notice',
        data: expect.stringContaining('this run is for Dependabot'),
      }),
    );
    expect(service.requests.length).toBe(before);
  });

  it('for anyone else, an empty key fails as before', async () => {
    const empty = await run({ inputs: inputsFor(service, { apiKey: '' }) });
    expectFailure(empty, 'Input "apiKey"');
  });
});

describe("a dispatch that names a thread's lane", () => {
  it('names it by number; anything else is a bad input, before any request', async () => {
    const before = service.requests.length;
    const result = await run({
      inputs: inputsFor(service, { thread: 'true', wait: 'false' }),
      event: { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-thread': '12; rm -rf' } } },
    });
    expectFailure(result, 'The workflow_dispatch input "docs-agent-thread" is');
    expect(service.requests.length).toBe(before);
  });
});
