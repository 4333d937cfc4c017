// A key echoed back by the service (or a gateway in front of it) must not survive anywhere the
// runner keeps, not even in part — run() in process, against the emulator over real sockets (one
// such echo also goes through the bundle, in e2e.masking.test.ts): the action shortens, quotes and
// escapes service text, and each of those would turn the echo into something the runner's
// exact-match mask misses. `run` checks every 12-character piece of the key, raw and with JSON,
// backslash, HTML and command escapes undone.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gatewayEchoing,
  errors,
  expectFailure,
  inputsFor,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 0 });

/** Printable ASCII keys of the lengths and characters that broke the mask before. */
const PLAIN_38 = 'mint_9fQ2xK7LwP3zR8vT1yN6bH4cJ5dM0sA2e';
const QUOTES_30 = 'mint_Ab"cD\\eF3gH4"jK5\\mN6pQ7rS';
const HTML_34 = `mint_<a>'x'&"Zq8WvR2nLp5TxY7cQ9Kw>`;
const LONG_229 = `mint_${'Zq8WvR2nLp5TxY7c'.repeat(14)}`;

describe('a key echoed by the service', () => {
  it('in a gateway 503 on a poll: the warning says *** where the key was', async () => {
    const service = await emulator({ apiKey: PLAIN_38 });
    service.script('get', gatewayEchoing(PLAIN_38));
    const result = await run({ inputs: inputsFor(service, { apiKey: PLAIN_38 }) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('(token=***) is rate limited');
  });

  it('in a 401 on create, with quotes and backslashes in the key', async () => {
    const service = await emulator();
    service.script('create', { status: 401, json: { error: `Invalid API key ${QUOTES_30}` } });
    const result = await run({ inputs: inputsFor(service, { apiKey: QUOTES_30 }) });
    expectFailure(result, 'The service said: "Invalid API key ***".');
  });

  it("in a 403 on a poll, with ' \" & < > in the key: log and the summary's failure paragraph", async () => {
    const service = await emulator({ apiKey: HTML_34 });
    service.script('get', { status: 403, json: { error: `Key ${HTML_34} is not on the allowlist` } });
    const result = await run({ inputs: inputsFor(service, { apiKey: HTML_34 }) });
    expectFailure(result, 'The service said: "Key *** is not on the allowlist".');
    expect(result.summary).toContain('Key *** is not on the allowlist');
  });

  it('in job fields the summary shows and the job output carries, 229 characters long', async () => {
    const service = await emulator({ apiKey: LONG_229 });
    service.script('create', {
      job: { model: LONG_229, source: { repository: 'https://github.com/acme/docs', ref: LONG_229 } },
    });
    const result = await run({ inputs: inputsFor(service, { apiKey: LONG_229 }) });
    expect(result.code).toBe(0);
    const job = JSON.parse(result.outputs.job ?? '{}') as { model?: string; source?: { ref?: string } };
    expect(job.model).toBe('***');
    expect(job.source?.ref).toBe('***');
    expect(result.summary).toMatch(/<td>\*\*\*<\/td>/);
  });

  it('in a 400 on create', async () => {
    const service = await emulator();
    service.script('create', {
      status: 400,
      json: { error: `prompt must not contain credentials such as ${QUOTES_30}` },
    });
    const result = await run({ inputs: inputsFor(service, { apiKey: QUOTES_30 }) });
    expectFailure(result, 'such as ***');
  });

  it('in a 404 on a follow-up message', async () => {
    const service = await emulator({ apiKey: HTML_34 });
    service.script('message', { status: 404, json: { error: `No job for key ${HTML_34}` } });
    const result = await run({ inputs: inputsFor(service, { apiKey: HTML_34, jobId: 'job_1' }) });
    expectFailure(result, 'The service said: "No job for key ***".');
  });

  it('in a pull request link: the output, the log line and the summary link', async () => {
    const service = await emulator({
      apiKey: PLAIN_38,
      final: { status: 'completed', prLink: `https://github.com/acme/docs/pull/9?t=${PLAIN_38}` },
    });
    const result = await run({ inputs: inputsFor(service, { apiKey: PLAIN_38 }) });
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe('https://github.com/acme/docs/pull/9?t=***');
    expect(result.stdout).toContain('completed: https://github.com/acme/docs/pull/9?t=***');
  });

  it('in a status the action does not know: the status line and the warning', async () => {
    const service = await emulator({ apiKey: QUOTES_30 });
    service.script(
      'get',
      { job: { status: `queued for ${QUOTES_30}` } },
      { job: { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' } },
    );
    const result = await run({ inputs: inputsFor(service, { apiKey: QUOTES_30 }) });
    expect(result.code).toBe(0);
    expect(warnings(result).join('\n')).toContain('reports the status "queued for ***"');
    expect(result.stdout).toContain('is now "queued for ***"');
  });

  it('in a piece cut short by a gateway, and split over two fields', async () => {
    const service = await emulator({ apiKey: LONG_229 });
    service.script('get', {
      status: 502,
      json: { error: `upstream refused ${LONG_229.slice(0, 20)}… (${LONG_229.slice(100, 140)})` },
    });
    const result = await run({ inputs: inputsFor(service, { apiKey: LONG_229 }) });
    expect(result.code).toBe(0);
    expect(warnings(result)[0]).toContain('upstream refused ***… (***)');
    expect(errors(result)).toEqual([]);
  });
});
