// run() with @actions/core replaced by typed fakes and the clock injected, against the emulator
// over real sockets: the order of work (docs/design.md §3.1) without waiting in real time.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../__fixtures__/clock.js';
import { startEmulator, type Emulator } from '../emulators/server.js';

jest.unstable_mockModule('@actions/core', () => core);
const { run } = await import('../src/main.js');
// After the mock: the fixture reaches src/core/secrets.ts, which must see the mocked core.
const { commentEvent } = await import('../__fixtures__/github-world.js');

const KEY = 'mint_main_test_key';
let service: Emulator;
let inputs: Record<string, string>;
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY, activePolls: 3 });
});
afterAll(async () => {
  await service.close();
});
beforeEach(() => {
  jest.clearAllMocks();
  inputs = {
    prompt: 'Update the SDK pages',
    projectId: 'p',
    apiKey: KEY,
    baseUrl: service.url,
    wait: 'true',
    timeout: '30m',
    pollInterval: '10s',
    comment: 'false',
    context: 'none',
    contextLimit: '20000',
  };
  core.getInput.mockImplementation((name) => inputs[name] ?? '');
});
// A failed run sets the exit code of the process it runs in: this one's, here.
afterEach(() => {
  process.exitCode = undefined;
});

/** Every call to the fake core, in order, as `name(args)`. */
function calls(): string[] {
  const all = Object.entries(core).flatMap(([name, fn]) =>
    'mock' in fn
      ? fn.mock.calls.map((args, i) => ({ name, args, order: fn.mock.invocationCallOrder[i] ?? 0 }))
      : [],
  );
  return all
    .sort((a, b) => a.order - b.order)
    .map(({ name, args }) => `${name}(${args.map(String).join(', ')})`);
}

describe('run', () => {
  it('masks the key before anything else, sets jobId once before polling, and outputs at the end', async () => {
    const clock = new VirtualClock();
    const before = service.requests.length;
    await run({ clock });
    const order = calls().filter(
      (c) => !c.startsWith('getInput') && !c.startsWith('debug') && !c.startsWith('isDebug'),
    );
    expect(order[0]).toBe(`setSecret(${KEY})`);
    const jobId = service.requests[before]?.route === 'create' ? [...service.jobs.keys()].at(-1) : undefined;
    // Before the first poll's news (the job is still active there).
    expect(order.indexOf(`setOutput(jobId, ${jobId})`)).toBeLessThan(
      order.findIndex((c) => c.includes('is now') || c.includes('completed:')),
    );
    // jobId once, as soon as it is known; the rest at the end.
    expect(order.filter((c) => c.startsWith('setOutput(jobId,'))).toEqual([`setOutput(jobId, ${jobId})`]);
    expect(order.slice(-6)).toEqual([
      'setOutput(status, completed)',
      expect.stringMatching(/^setOutput\(prLink, https:\/\/github\.com\/acme\/docs\/pull\/\d+\)$/),
      expect.stringMatching(/^setOutput\(prNumber, \d+\)$/),
      'setOutput(prRepository, acme/docs)',
      expect.stringMatching(/^setOutput\(job, \{"id":"job_\w+","status":"completed",.*\}\)$/),
      // The create the service accepted: one of the quota's uses.
      'setOutput(uses, 1)',
    ]);
    expect(core.setFailed).not.toHaveBeenCalled();
    expect(process.exitCode).toBeUndefined();
    expect(clock.sleeps).toHaveLength(4);
  });

  it('skips the summary when there is no summary file (a local run)', async () => {
    delete process.env.GITHUB_STEP_SUMMARY;
    await run({ clock: new VirtualClock() });
    expect(core.summary.write).not.toHaveBeenCalled();
  });

  it('writes the summary with the failure when the job fails', async () => {
    process.env.GITHUB_STEP_SUMMARY = '/dev/null';
    service.script('create', { job: { status: 'failed' } });
    await run({ clock: new VirtualClock() });
    expect(core.setFailed).toHaveBeenCalledTimes(1);
    expect(core.setFailed.mock.calls[0]?.[0]).toMatch(
      /^Agent job job_\w+ failed\. Its record in the service's dashboard/,
    );
    // Set by the action, not left to @actions/core: a stand-in for it (as here, or GitHub's local
    // runner's) may only record the failure.
    expect(process.exitCode).toBe(1);
    expect(core.summary.addRaw).toHaveBeenCalledWith(expect.stringContaining('failed.'), true);
    expect(core.summary.write).toHaveBeenCalledTimes(1);
    delete process.env.GITHUB_STEP_SUMMARY;
  });

  it('turns a thrown non-Error into one failure line', async () => {
    core.info.mockImplementationOnce(() => {
      // A non-Error on purpose: the one failure line must hold whatever was thrown.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw 'a string, not an Error';
    });
    await run({ clock: new VirtualClock() });
    expect(core.setFailed).toHaveBeenCalledWith(
      'The action failed unexpectedly: a string, not an Error. Re-run the job with debug logging enabled for details.',
    );
  });

  // A bad input of each kind through run() (every rule is in inputs.test.ts): the step fails with
  // the one line that names it, and not a request leaves.
  it.each([
    ['no prompt', { prompt: '' }, 'Input "prompt" is required'],
    ['no apiKey', { apiKey: '' }, 'Input "apiKey" is required'],
    ['a plain-http baseUrl off this machine', { baseUrl: 'http://api.example.com' }, 'must use https'],
    ['a timeout that is not a duration', { timeout: 'forever' }, 'Input "timeout" is not a duration'],
    ['a reviewer GitHub cannot have', { reviewers: 'octo cat' }, 'Input "reviewers" has "octo cat"'],
  ])('%s: fails in one line, before any request', async (_name, overrides, message) => {
    Object.assign(inputs, overrides);
    const before = service.requests.length;
    await run({ clock: new VirtualClock() });
    expect(service.requests.length).toBe(before);
    expect(core.setFailed).toHaveBeenCalledTimes(1);
    expect(core.setFailed.mock.calls[0]?.[0]).toContain(message);
    expect(core.setOutput).not.toHaveBeenCalled();
  });

  it('goes on without the GitHub side when its chunk cannot load: one warning, the job as usual', async () => {
    Object.assign(inputs, { comment: 'true', githubToken: 'ghs_MainTestToken000000000000000000000001' });
    await run({
      clock: new VirtualClock(),
      github: () => Promise.reject(new Error("Cannot find module './413.index.js'")),
    });
    expect(core.warning.mock.calls).toEqual([
      [
        "Could not load the GitHub side of the action: Cannot find module './413.index.js'. The job goes on without it.",
      ],
    ]);
    expect(core.setFailed).not.toHaveBeenCalled();
    expect(core.setOutput).toHaveBeenCalledWith('status', 'completed');
  });

  it('ends the step on a 404 more than 30 s after the create, keeping the outputs', async () => {
    const clock = new VirtualClock();
    service.script(
      'get',
      ...Array.from({ length: 3 }, () => ({ status: 404, json: { error: 'Job not found' } })),
    );
    await run({ clock });
    // Polls at 10 s and 25 s are forgiven (a new job may not be readable yet); the next is not.
    expect(clock.sleeps.length).toBe(3);
    expect(core.setFailed.mock.calls[0]?.[0]).toMatch(/^Agent job job_\w+ was not found in project p at /);
    expect(core.setOutput).toHaveBeenCalledWith('status', 'active');
  });
});

describe('what comes from outside stays inert', () => {
  const RUNTIME = 'runtime_Tk4pXq9ZrW2mLs8VnB3c';
  const ID_TOKEN = 'idtok_Hy7Rt2KqP9wZx5VmC1bN';
  afterAll(() => {
    delete process.env.ACTIONS_RUNTIME_TOKEN;
    delete process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  });

  it('sends no run secret in the prompt, in any form, and says so without saying what', async () => {
    process.env.ACTIONS_RUNTIME_TOKEN = RUNTIME;
    process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = ID_TOKEN;
    inputs.githubToken = 'ghs_PromptTestToken0123456789abcdef';
    const basic = Buffer.from(`Bearer ${KEY}`).toString('base64');
    inputs.prompt = [
      'Document these:',
      `key ${KEY}`,
      `token ${inputs.githubToken}`,
      `runtime ${RUNTIME} id ${ID_TOKEN}`,
      `header Authorization: Basic ${basic}`,
      `url ?t=${encodeURIComponent(inputs.githubToken)}`,
    ].join('\n');
    const before = service.requests.length;
    await run({ clock: new VirtualClock() });
    const sent = (service.requests[before]?.json as { prompt: string }).prompt;
    expect(sent.startsWith('Document these:\nkey ***\ntoken ***\nruntime *** id ***')).toBe(true);
    for (const secret of [KEY, inputs.githubToken, RUNTIME, ID_TOKEN, basic.slice(12, 36)]) {
      expect(sent).not.toContain(secret.slice(0, 12));
    }
    const warned = core.warning.mock.calls.map(([m]) => String(m));
    expect(warned).toEqual([
      'The prompt held a secret of this run (the API key, a GitHub token, a proxy password or a runner token); it was replaced by *** before the prompt was sent.',
    ]);
  });

  it('sends a prompt without secrets as written, with no warning', async () => {
    inputs.prompt = 'Update the SDK pages: Basic auth, tokens, mint_ keys';
    const before = service.requests.length;
    await run({ clock: new VirtualClock() });
    expect((service.requests[before]?.json as { prompt: string }).prompt).toBe(inputs.prompt);
    expect(core.warning).not.toHaveBeenCalled();
  });

  it('sets outputs a later step can echo: no control character, a prLink only when plain', async () => {
    const link = 'https://github.com/a/b/pull/1\n::add-mask::x';
    service.script('create', {
      status: 201,
      raw: JSON.stringify({
        id: 'job_ctl',
        status: 'completed\r\n::stop-commands::t\u001b[2J\u0085',
        prLink: link,
      }),
      headers: { 'content-type': 'application/json' },
    });
    await run({ clock: new VirtualClock() });
    const outputs = Object.fromEntries(core.setOutput.mock.calls.map(([n, v]) => [n, String(v)]));
    expect(outputs.prLink).toBe('');
    expect(outputs.status).toBe('completed\\u000d\\u000a::stop-commands::t\\u001b[2J\\u0085');
    for (const value of Object.values(outputs)) expect(value).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect((JSON.parse(outputs.job ?? '') as { prLink: string }).prLink).toBe(link);
    expect(core.warning).toHaveBeenCalledWith(
      'The prLink "https://github.com/a/b/pull/1\\u000a::add-mask::x" is not a plain http(s) URL; the prLink output is left empty.',
    );
  });

  it('a create answered with a job nested 20,000 deep: a job may exist, no blind re-run advice', async () => {
    const deep = `{"id":"job_deep","status":"active","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    service.script('create', { status: 201, raw: deep, headers: { 'content-type': 'application/json' } });
    await run({ clock: new VirtualClock() });
    expect(core.setFailed).toHaveBeenCalledTimes(1);
    const failure = String(core.setFailed.mock.calls[0]?.[0]);
    expect(failure).toContain('the job may have been created anyway, so the action does not send it again');
    expect(failure).not.toMatch(/unexpectedly|Maximum call stack/);
  });

  it('a poll answered with a job nested 20,000 deep is a passing fault: the next poll ends it', async () => {
    const deep = `{"id":"job_deep","status":"active","x":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
    service.script('get', { raw: deep, headers: { 'content-type': 'application/json' } });
    await run({ clock: new VirtualClock() });
    expect(core.setFailed).not.toHaveBeenCalled();
    expect(core.warning.mock.calls.map(([m]) => String(m)).join('\n')).toContain('a body that is not a job');
    expect(core.setOutput).toHaveBeenCalledWith('status', 'completed');
  });
});

describe('a step that does nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'main-event-'));
  function onEvent(name: string, payload: unknown): void {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(payload));
    process.env.GITHUB_EVENT_NAME = name;
    process.env.GITHUB_EVENT_PATH = path;
  }
  afterAll(() => {
    delete process.env.GITHUB_EVENT_NAME;
    delete process.env.GITHUB_EVENT_PATH;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a comment that is not a request: one notice, status and mode skipped, not one request', async () => {
    Object.assign(inputs, {
      prompt: '',
      trigger: '/docs',
      githubToken: 'ghs_MainTestToken000000000000000000000001',
    });
    onEvent('issue_comment', commentEvent(3, 'LGTM!').payload);
    const before = service.requests.length;
    let loaded = false;
    await run({
      clock: new VirtualClock(),
      github: () => {
        loaded = true;
        return Promise.reject(new Error('not loaded on a skip'));
      },
    });
    expect(service.requests.length).toBe(before);
    expect(loaded).toBe(false);
    expect(core.notice.mock.calls).toEqual([['Skipped: the comment does not begin with "/docs".']]);
    expect(core.setOutput.mock.calls).toEqual([
      ['status', 'skipped'],
      ['mode', 'skipped'],
      ['uses', '0'],
    ]);
    expect(core.setFailed).not.toHaveBeenCalled();
    expect(core.summary.write).not.toHaveBeenCalled();
  });

  it('a request from a bot: refused the same way, the step does not fail', async () => {
    Object.assign(inputs, {
      prompt: '',
      trigger: '/docs',
      githubToken: 'ghs_MainTestToken000000000000000000000001',
    });
    onEvent('issue_comment', commentEvent(3, '/docs document it', { login: 'ci[bot]', type: 'Bot' }).payload);
    const before = service.requests.length;
    await run({
      clock: new VirtualClock(),
      github: () => Promise.reject(new Error('no GitHub side in this test')),
    });
    expect(service.requests.length).toBe(before);
    expect(core.notice.mock.calls[0]?.[0]).toContain('Skipped: "ci[bot]" may not start a docs job here');
    expect(core.setOutput).toHaveBeenCalledWith('status', 'skipped');
    expect(core.setFailed).not.toHaveBeenCalled();
  });

  it("a named actor's request creates a job with the request as the prompt, and says so in mode", async () => {
    Object.assign(inputs, {
      prompt: 'Keep the style guide.',
      trigger: '/docs',
      // Named, so no look-up of their access is needed, and this test needs no GitHub side.
      allowedActors: 'octocat',
      githubToken: 'ghs_MainTestToken000000000000000000000001',
    });
    onEvent('issue_comment', commentEvent(3, '/docs document the flag').payload);
    const before = service.requests.length;
    await run({
      clock: new VirtualClock(),
      github: () => Promise.reject(new Error('no GitHub side in this test')),
    });
    expect((service.requests[before]?.json as { prompt: string }).prompt).toBe(
      'Keep the style guide.\n\ndocument the flag',
    );
    expect(core.setOutput).toHaveBeenCalledWith('mode', 'created');
    expect(core.setFailed).not.toHaveBeenCalled();
  });

  it('a request asks the GitHub side for the kept comment, whatever comment says, and for the access of a member', async () => {
    Object.assign(inputs, {
      prompt: '',
      trigger: '/docs',
      comment: 'false',
      githubToken: 'ghs_MainTestToken000000000000000000000001',
    });
    onEvent('issue_comment', commentEvent(3, '/docs document the flag', { association: 'MEMBER' }).payload);
    const asked: { comment?: boolean; actors: string[]; closed?: boolean } = { actors: [] };
    const before = service.requests.length;
    // Only the GitHub side's chunk is replaced: what run() hands it, and the access it reports.
    await run({
      clock: new VirtualClock(),
      github: (request) => {
        asked.comment = request.comment;
        const unasked = () => Promise.reject(new Error('not asked in this test'));
        return Promise.resolve({
          decide: {
            accessOf: (actor: string) => {
              asked.actors.push(actor);
              return Promise.resolve({ permission: 'read', role: 'read' });
            },
            recall: unasked,
            docsPull: unasked,
            docsOf: unasked,
            accessOn: unasked,
            docsAsks: unasked,
            context: unasked,
            moment: unasked,
            threadComments: unasked,
            changedFiles: unasked,
            mergedAlongside: unasked,
          },
          execute: {
            started: () => {
              throw new Error('not asked in this test');
            },
          },
          report: {
            finish: unasked,
            answer: unasked,
            removeLabel: unasked,
            handDocsAsk: unasked,
            followCode: unasked,
            skipped: unasked,
            waitingEnd: unasked,
          },
          sweep: {
            waiting: unasked,
            reportEnd: unasked,
            pull: unasked,
            branchWaiting: unasked,
            thread: unasked,
            handOff: unasked,
            reportBranchEnd: unasked,
            settleOwed: unasked,
            docsThread: unasked,
            docsAsks: unasked,
            oweDocs: unasked,
            linkPreview: unasked,
            pullOfCommit: unasked,
          },
          // Closed at the end of the run, whatever it did; a fault there changes nothing.
          close: () => {
            asked.closed = true;
            return Promise.reject(new Error('the connection would not close'));
          },
        });
      },
    });
    expect(asked).toEqual({ comment: true, actors: ['octocat'], closed: true });
    // A member with read access: nothing sent.
    expect(service.requests.length).toBe(before);
    expect(core.setOutput).toHaveBeenCalledWith('status', 'skipped');
  });
});
