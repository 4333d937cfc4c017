// Bad input: one error that names the input, and not a single request (docs/design.md §3.1, §6).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startEmulator, type Emulator } from '../src/emulator/server.js';
import { expectFailure, inputsFor, KEY, run } from '../__fixtures__/e2e.js';

let service: Emulator;
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY });
});
afterAll(async () => {
  await service.close();
});

describe('bad input', () => {
  it.each([
    ['no prompt', { prompt: '' }, 'Input "prompt" is required'],
    ['a prompt of spaces only', { prompt: '  \n ' }, 'Input "prompt" is required'],
    ['no projectId', { projectId: '' }, 'Input "projectId" is required'],
    ['a projectId with a space', { projectId: 'my project' }, 'Input "projectId" must not contain spaces'],
    ['a projectId that is a dot segment', { projectId: '..' }, 'Input "projectId" must not be "." or ".."'],
    ['no apiKey', { apiKey: '' }, 'Input "apiKey" is required'],
    [
      'an apiKey with a line break',
      { apiKey: `${KEY}\nX-Injected: 1` },
      'Input "apiKey" may only hold printable ASCII characters',
    ],
    [
      'an apiKey with a zero-width space',
      { apiKey: `${KEY}\u200b` },
      'Input "apiKey" may only hold printable ASCII',
    ],
    ['no baseUrl', { baseUrl: '' }, 'Input "baseUrl" is required'],
    ['a baseUrl that is not a URL', { baseUrl: 'api.example.com' }, 'Input "baseUrl" is not a URL'],
    [
      'a plain-http baseUrl off this machine',
      { baseUrl: 'http://api.example.com' },
      'Input "baseUrl" must use https',
    ],
    [
      'a baseUrl with credentials',
      { baseUrl: 'https://u:p@api.example.com' },
      'must not contain a user name or password',
    ],
    ['a baseUrl with a query', { baseUrl: 'https://api.example.com/?a=1' }, 'must not have a query string'],
    ['a wait that is not a boolean', { wait: 'sometimes' }, 'Input "wait" must be true or false'],
    ['a timeout that is not a duration', { timeout: 'forever' }, 'Input "timeout" is not a duration'],
    ['a zero timeout', { timeout: '0s' }, 'Input "timeout" must be at least 1s'],
    ['a huge timeout', { timeout: '48h' }, 'Input "timeout" must be at most 24h'],
    ['a sub-second pollInterval', { pollInterval: '0' }, 'Input "pollInterval" must be at least 1s'],
    [
      'a pollInterval that is not a duration',
      { pollInterval: '5 seconds' },
      'Input "pollInterval" is not a duration',
    ],
  ])('%s fails before any request', async (_name, overrides, message) => {
    const before = service.requests.length;
    const result = await run({ inputs: inputsFor(service, overrides) });
    expectFailure(result, message);
    expect(service.requests.length).toBe(before);
    expect(result.outputs).toEqual({});
    expect(result.summary).toBe('');
  });

  it('masks the key before printing anything, even when it is the bad input', async () => {
    const key = `${KEY} trailing-word`;
    const result = await run({ inputs: inputsFor(service, { apiKey: key }) });
    expect(result.code).toBe(1);
    const first = result.stdout.split('\n')[0];
    expect(first).toBe(`::add-mask::${key}`);
    const rest = `${result.stdout}\n${result.stderr}`.split('\n').slice(1);
    expect(rest.join('\n')).not.toContain('trailing-word');
  });

  it('does not echo a baseUrl that carries credentials', async () => {
    const result = await run({
      inputs: inputsFor(service, { baseUrl: 'https://admin:hunter2@api.example.com' }),
    });
    // Refused as a bad input, not merely unreachable: without the rule, the key would go there.
    expectFailure(result, 'Input "baseUrl" must not contain a user name or password.');
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });
});
