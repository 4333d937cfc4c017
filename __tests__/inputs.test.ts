import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventNeeds } from '../src/decide/features.js';
import { isLoopback } from '../src/decide/input-rules.js';
import { InputError, readInputs, type Inputs } from '../src/decide/inputs.js';
import { readRunContext } from '../src/core/run-context.js';

/** The runner's variables the event is read from; tests pass their own. */
type RunnerEnv = Readonly<Record<string, string | undefined>>;

/** What the event means for the inputs, read as the run reads it from the runner's variables. */
const needsOf = (env: RunnerEnv) => eventNeeds(readRunContext(env).event);

const KEY = 'mint_0123456789abcdef';
const defaults: Record<string, string> = {
  prompt: 'Document the new endpoint',
  projectId: 'proj_1',
  apiKey: KEY,
  baseUrl: 'https://api.example.com',
  wait: 'true',
  timeout: '30m',
  pollInterval: '10s',
  comment: 'false',
  context: 'none',
  contextLimit: '20000',
};

// No runner variables: where these tests run must not change what they see.
function read(overrides: Record<string, string> = {}, env: RunnerEnv = {}): Inputs {
  const values = { ...defaults, ...overrides };
  return readInputs((name) => values[name] ?? '', undefined, needsOf(env));
}

function problem(overrides: Record<string, string>, env: RunnerEnv = {}): string {
  try {
    read(overrides, env);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected an InputError');
}

describe('readInputs', () => {
  it('reads the defaults into one typed object', () => {
    expect(read()).toEqual({
      prompt: 'Document the new endpoint',
      projectId: 'proj_1',
      apiKey: KEY,
      baseUrl: 'https://api.example.com',
      wait: true,
      timeout: 1_800_000,
      pollInterval: 10_000,
      comment: false,
      labels: [],
      reviewers: [],
      githubToken: '',
      docsToken: '',
      docsTokenGiven: false,
      context: 'none',
      contextLimit: 20_000,
      allowedActors: [],
      thread: false,
      status: false,
      sweep: false,
      paths: [],
      draft: false,
      dryRun: false,
      followUp: 'every-push',
    });
  });

  it('takes a label with a / (area/docs), as GitHub does; triggerLabel, named in a URL path, not', () => {
    const inputs = read({
      labels: 'area/docs, docs',
      githubToken: 'ghs_InputsTestToken00000000000000000001',
    });
    expect(inputs.labels).toEqual(['area/docs', 'docs']);
  });

  it('reads paths one a line, triggerLabel as one label and autoMerge as a merge method', () => {
    const inputs = read({
      paths: '  src/**\n\n!src/**/*.test.ts  \n',
      triggerLabel: 'docs',
      autoMerge: 'Squash',
      githubToken: 'ghs_InputsTestToken00000000000000000001',
    });
    expect(inputs).toMatchObject({
      paths: ['src/**', '!src/**/*.test.ts'],
      triggerLabel: 'docs',
      autoMerge: 'squash',
    });
  });

  it('reads promptFile relative to the workspace given, not the working directory; an absolute path as is', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'));
    mkdirSync(join(workspace, '.github'));
    writeFileSync(join(workspace, '.github', 'p.md'), '  Refresh the docs \n');
    const values = { ...defaults, prompt: '', promptFile: '.github/p.md' };
    expect(readInputs((name) => values[name as keyof typeof values] ?? '', workspace).prompt).toBe(
      'Refresh the docs',
    );
    const absolute = { ...values, promptFile: join(workspace, '.github', 'p.md') };
    expect(readInputs((name) => absolute[name as keyof typeof absolute] ?? '', '/nonexistent').prompt).toBe(
      'Refresh the docs',
    );
    expect(() => readInputs((name) => values[name as keyof typeof values] ?? '', tmpdir())).toThrow(
      'Input "promptFile" names ".github/p.md", which does not exist',
    );
  });

  it('reads context and contextLimit', () => {
    expect(read({ context: 'AUTO', contextLimit: '5000', githubToken: 't' })).toMatchObject({
      context: 'auto',
      contextLimit: 5000,
    });
  });

  it('keeps a usable githubToken on an event anyone can cause: an actor may have to be looked up', () => {
    const values = { ...defaults, githubToken: 'ghs_gate_token' };
    const on = (event: string) =>
      readInputs(
        (name) => values[name as keyof typeof values] ?? '',
        process.cwd(),
        needsOf({ GITHUB_EVENT_NAME: event }),
      );
    expect(on('issues').githubToken).toBe('ghs_gate_token');
    expect(on('push').githubToken).toBe('');
    values.githubToken = '${{ github.token }}';
    expect(on('issues').githubToken).toBe('');
  });

  it('reads no token a run does not use: a local run passes ${{ github.token }} as text', () => {
    expect(read({ githubToken: '${{ github.token }}', docsToken: 'not a token at all' })).toMatchObject({
      githubToken: '',
      docsToken: '',
    });
  });

  it('reads the GitHub side: lists by comma or line, docsToken falling back to githubToken', () => {
    const inputs = read({
      comment: 'true',
      labels: ' docs, agent \n\nneeds-review,docs',
      reviewers: 'octocat\nacme/docs-team , hubot',
      githubToken: 'ghs_abc',
    });
    expect(inputs).toMatchObject({
      comment: true,
      labels: ['docs', 'agent', 'needs-review'],
      reviewers: ['octocat', 'acme/docs-team', 'hubot'],
      githubToken: 'ghs_abc',
      docsToken: 'ghs_abc',
      // The stand-in is for this GitHub only: it never goes to a docs pull request on another.
      docsTokenGiven: false,
    });
    expect(read({ labels: 'x', githubToken: 'a', docsToken: 'b' })).toMatchObject({
      docsToken: 'b',
      docsTokenGiven: true,
    });
    // The same value as githubToken, set on purpose, is given all the same.
    expect(read({ labels: 'x', githubToken: 'a', docsToken: 'a' }).docsTokenGiven).toBe(true);
    // Managed users on GHE.com have logins such as handle_shortcode.
    expect(read({ reviewers: 'mona_acme, acme/docs.writers', githubToken: 'a' }).reviewers).toEqual([
      'mona_acme',
      'acme/docs.writers',
    ]);
  });

  it('keeps a path prefix and drops a trailing slash', () => {
    expect(read({ baseUrl: 'https://gw.example.com/agent-api/' }).baseUrl).toBe(
      'https://gw.example.com/agent-api',
    );
    expect(read({ baseUrl: 'https://api.example.com/' }).baseUrl).toBe('https://api.example.com');
  });

  it('allows http only for loopback hosts', () => {
    expect(read({ baseUrl: 'http://localhost:8080' }).baseUrl).toBe('http://localhost:8080');
    expect(read({ baseUrl: 'http://127.0.0.1:8080' }).baseUrl).toBe('http://127.0.0.1:8080');
    expect(read({ baseUrl: 'http://127.5.6.7' }).baseUrl).toBe('http://127.5.6.7');
    expect(read({ baseUrl: 'http://[::1]:9000/x' }).baseUrl).toBe('http://[::1]:9000/x');
  });

  it('reads wait in any case', () => {
    expect(read({ wait: 'False' }).wait).toBe(false);
    expect(read({ wait: 'TRUE' }).wait).toBe(true);
  });

  it('keeps the prompt byte for byte', () => {
    const prompt = 'Line one\n  line "two" — ünïcode ${{ not.an.expression }}\ttab';
    expect(read({ prompt }).prompt).toBe(prompt);
  });

  it.each([
    [{ prompt: '' }, 'Input "prompt" is required'],
    [{ comment: 'yes' }, 'Input "comment" must be true or false'],
    [{ context: 'full' }, 'Input "context" must be auto or none, got "full"'],
    [
      { contextLimit: '500' },
      'Input "contextLimit" must be a whole number of characters from 1000 to 1000000',
    ],
    [{ contextLimit: '2e4' }, 'Input "contextLimit" must be a whole number'],
    [
      { context: 'auto', githubToken: '' },
      'Input "githubToken" is empty, but comment, thread, status or sweep is true, context is auto, or trigger, triggerLabel or paths is set',
    ],
    [{ prompt: 'x', promptFile: 'p.md' }, 'Input "promptFile" and input "prompt" are both set'],
    [
      { prompt: '', promptFile: 'no-such-file.md' },
      'Input "promptFile" names "no-such-file.md", which does not exist',
    ],
    [{ labels: 'x'.repeat(51) }, 'Input "labels" has "xxxx'],
    [
      { labels: 'docs, ..' },
      'Input "labels" has "..", which is a dot segment of a URL path: give label names',
    ],
    [{ labels: '.' }, 'Input "labels" has ".", which is a dot segment of a URL path'],
    [
      { labels: 'docs\u0085' },
      'Input "labels" has "docs\\u0085", which holds a control, invisible or bidirectional character',
    ],
    [{ labels: 'docs\u202e' }, 'which holds a control, invisible or bidirectional character'],
    [{ labels: Array.from({ length: 101 }, (_, i) => `l${i}`).join(',') }, 'GitHub takes at most 100'],
    [{ reviewers: 'octo cat' }, 'Input "reviewers" has "octo cat"'],
    [{ reviewers: '-octocat' }, 'Input "reviewers" has "-octocat"'],
    [{ reviewers: 'acme/team/x' }, 'Input "reviewers" has "acme/team/x"'],
    [{ reviewers: 'acme/' }, 'Input "reviewers" has "acme/"'],
    [
      { comment: 'true', githubToken: 'ghs_a b' },
      'Input "githubToken" may only hold printable ASCII characters',
    ],
    [{ labels: 'x', docsToken: 'ghs_a\nX: y' }, 'Input "docsToken" may only hold printable ASCII characters'],
    [
      { comment: 'true', githubToken: '${{ github.token }}' },
      'Input "githubToken" is "${{ github.token }}", an expression nothing evaluated (a local run has no github.token), but comment, thread, status or sweep is true, context is auto, or trigger, triggerLabel or paths is set: pass a token as githubToken.',
    ],
    [
      { comment: 'true', githubToken: '' },
      'Input "githubToken" is empty, but comment, thread, status or sweep is true',
    ],
    [{ reviewers: 'octocat', githubToken: '', docsToken: '' }, 'Input "docsToken" is empty'],
    [
      { autoMerge: 'fast-forward' },
      'Input "autoMerge" must be merge, squash or rebase (or empty for none), got "fast-forward".',
    ],
    [{ autoMerge: 'squash', githubToken: '', docsToken: '' }, 'but labels, reviewers or autoMerge are set'],
    [
      { triggerLabel: 'docs,help' },
      'Input "triggerLabel" is "docs,help", which holds a comma: give one label',
    ],
    [{ triggerLabel: '..' }, 'Input "triggerLabel" is "..", which is a dot segment of a URL path'],
    [{ triggerLabel: '.' }, 'Input "triggerLabel" is ".", which is a dot segment of a URL path'],
    [{ triggerLabel: 'docs/api' }, 'Input "triggerLabel" is "docs/api", which holds a /'],
    [{ triggerLabel: 'do\tcs' }, 'Input "triggerLabel" is "do\\u0009cs", which holds a control'],
    [{ triggerLabel: 'x'.repeat(51) }, 'which is longer than 50 characters'],
    [{ triggerLabel: 'docs', githubToken: '' }, 'Input "githubToken" is empty'],
    [{ paths: 'src/**', githubToken: '' }, 'Input "githubToken" is empty'],
    [{ projectId: '' }, 'Input "projectId" is required'],
    [{ projectId: 'a b' }, 'Input "projectId" must not contain spaces'],
    [{ projectId: '..' }, 'Input "projectId" must not be "." or ".."'],
    [{ projectId: '.' }, 'Input "projectId" must not be "." or ".."'],
    [{ projectId: 'x'.repeat(201) }, 'Input "projectId" is longer than 200 characters'],
    [{ apiKey: '' }, 'Input "apiKey" is required'],
    [{ apiKey: 'mint_abc\r\nX-Evil: 1' }, 'Input "apiKey" may only hold printable ASCII characters'],
    [{ apiKey: 'mint abc' }, 'Input "apiKey" may only hold printable ASCII characters'],
    [{ apiKey: 'mint_abc\u200b' }, 'Input "apiKey" may only hold printable ASCII characters'],
    [{ apiKey: 'mint_€uro' }, 'Input "apiKey" may only hold printable ASCII characters'],
    [{ baseUrl: '' }, 'Input "baseUrl" is required'],
    [{ baseUrl: 'api.example.com' }, 'Input "baseUrl" is not a URL'],
    [{ baseUrl: 'http://api.example.com' }, 'Input "baseUrl" must use https'],
    [{ baseUrl: 'http://127.0.0.1.example.com' }, 'Input "baseUrl" must use https'],
    [{ baseUrl: 'ftp://api.example.com' }, 'Input "baseUrl" must be an https URL, not ftp'],
    [
      { baseUrl: 'https://user:pw@api.example.com' },
      'Input "baseUrl" must not contain a user name or password',
    ],
    [{ baseUrl: 'https://api.example.com/?x=1' }, 'Input "baseUrl" must not have a query string'],
    [
      { baseUrl: 'https://api.example.com/#top' },
      'Input "baseUrl" must not have a query string or a fragment',
    ],
    [{ wait: 'yes' }, 'Input "wait" must be true or false, got "yes"'],
    [{ wait: '' }, 'Input "wait" must be true or false'],
    [
      { timeout: '30 minutes' },
      'Input "timeout" is not a duration: got "30 minutes"; expected a number with a unit',
    ],
    [{ timeout: '0' }, 'Input "timeout" must be at least 1s'],
    [{ timeout: '25h' }, 'Input "timeout" must be at most 24h'],
    [{ pollInterval: '500ms' }, 'Input "pollInterval" is not a duration'],
    [{ pollInterval: '0s' }, 'Input "pollInterval" must be at least 1s'],
  ])('rejects %j', (overrides, message) => {
    expect(problem(overrides)).toContain(message);
  });

  it('takes jobId with or without a prompt', () => {
    expect(read({ jobId: 'job_1' })).toMatchObject({ prompt: 'Document the new endpoint', jobId: 'job_1' });
    const waitOnly = read({ jobId: 'job_1', prompt: '' });
    expect(waitOnly.jobId).toBe('job_1');
    expect('prompt' in waitOnly).toBe(false);
    expect('jobId' in read()).toBe(false);
  });

  it.each([
    [
      { prompt: '', jobId: '' },
      'Input "prompt" is required (unless promptFile names a file that holds it, or jobId names a job to wait for)',
    ],
    [{ jobId: '..' }, 'Input "jobId" must not be "." or ".."'],
    [{ jobId: 'a\tb' }, 'Input "jobId" must not contain spaces or control characters'],
    [{ jobId: 'j'.repeat(201) }, 'Input "jobId" is longer than 200 characters'],
  ])('rejects the job input %j', (overrides, message) => {
    expect(problem(overrides)).toContain(message);
  });

  it('never echoes the key', () => {
    const key = 'mint_secret value';
    expect(problem({ apiKey: key })).not.toContain('secret');
  });

  it('never echoes credentials in baseUrl', () => {
    expect(problem({ baseUrl: 'https://user:hunter2@api.example.com' })).not.toContain('hunter2');
  });

  it('reports the first bad input in the order of the inputs table', () => {
    expect(problem({ prompt: '', timeout: 'x' })).toContain('"prompt"');
    expect(problem({ baseUrl: '', pollInterval: 'x' })).toContain('"baseUrl"');
  });
});

describe('an empty apiKey on a pull request from a fork', () => {
  const dir = mkdtempSync(join(tmpdir(), 'event-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;

  /** The runner's variables for an event whose payload is `payload` (a string as is). */
  function event(name: string, payload: unknown): RunnerEnv {
    const path = join(dir, `event-${++files}.json`);
    writeFileSync(path, typeof payload === 'string' ? payload : JSON.stringify(payload));
    return { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: path };
  }

  const pullRequest = (head: unknown, base: unknown = { full_name: 'acme/docs', fork: false }) => ({
    action: 'opened',
    pull_request: { number: 7, head: { ref: 'patch-1', repo: head }, base: { ref: 'main', repo: base } },
  });
  const fromFork = pullRequest({ full_name: 'someone/docs', fork: true });
  const PLAIN = 'Input "apiKey" is required: pass an admin API key from a secret';
  const FORK =
    'Input "apiKey" is empty: this run is for a pull request from the fork "someone/docs", and GitHub passes no secrets to runs for pull requests from forks. Skip such runs with if: github.event.pull_request == null || github.event.pull_request.head.repo.full_name == github.repository on the step or its job.';

  it.each(['pull_request', 'pull_request_review', 'pull_request_review_comment'])(
    'says why on %s, and how to skip such runs',
    (name) => {
      expect(problem({ apiKey: '' }, event(name, fromFork))).toBe(FORK);
    },
  );

  it('takes a head repository other than the base as a fork, even without the fork flag', () => {
    expect(problem({ apiKey: '' }, event('pull_request', pullRequest({ full_name: 'someone/docs' })))).toBe(
      FORK,
    );
  });

  it('takes a head repository deleted since (null) as a fork', () => {
    expect(problem({ apiKey: '' }, event('pull_request', pullRequest(null)))).toContain(
      'this run is for a pull request from a fork, and GitHub',
    );
  });

  it('keeps the plain message within a repository that is itself a fork (its head says fork: true)', () => {
    const own = { full_name: 'acme/docs', fork: true };
    expect(problem({ apiKey: '' }, event('pull_request', pullRequest(own, own)))).toContain(PLAIN);
  });

  it('escapes the fork name, which the fork chose', () => {
    const env = event('pull_request', pullRequest({ full_name: 'someone/docs\u001b[31m\u202e', fork: true }));
    expect(problem({ apiKey: '' }, env)).toContain(
      'from the fork "someone/docs\\u001b[31m\\u202e", and GitHub',
    );
  });

  it('keeps the plain message for a pull request within the repository', () => {
    const sameRepo = pullRequest({ full_name: 'acme/docs', fork: false });
    expect(problem({ apiKey: '' }, event('pull_request', sameRepo))).toContain(PLAIN);
    expect(problem({ apiKey: '' }, event('pull_request', pullRequest({ full_name: 'ACME/docs' })))).toContain(
      PLAIN,
    );
  });

  it.each([
    ['pull_request_target', 'pull_request_target', fromFork],
    ['push', 'push', fromFork],
    ['a payload that is not JSON', 'pull_request', '{"pull_request": '],
    ['a payload without a pull request', 'pull_request', { action: 'opened' }],
    ['a head without a repository name or flag', 'pull_request', pullRequest({})],
    ['a fork flag that is not true', 'pull_request', pullRequest({ full_name: 'acme/docs', fork: 'true' })],
  ])('keeps the plain message for %s', (_case, name, payload) => {
    expect(problem({ apiKey: '' }, event(name, payload))).toContain(PLAIN);
  });

  it('keeps the plain message when the payload cannot be read', () => {
    const env = { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: join(dir, 'missing.json') };
    expect(problem({ apiKey: '' }, env)).toContain(PLAIN);
    expect(problem({ apiKey: '' }, { GITHUB_EVENT_NAME: 'pull_request' })).toContain(PLAIN);
  });

  it('changes nothing when apiKey is given, nor the report of an earlier bad input', () => {
    expect(read({}, event('pull_request', fromFork)).apiKey).toBe(KEY);
    expect(problem({ apiKey: '', projectId: '' }, event('pull_request', fromFork))).toContain(
      'Input "projectId" is required',
    );
  });
});

describe('isLoopback', () => {
  it.each(['localhost', '127.0.0.1', '127.255.0.9', '[::1]'])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });
  it.each(['localhost.example.com', '10.0.0.1', '128.0.0.1', '[::2]', '127.0.0.1.nip.io', '0.0.0.0'])(
    '%s is not',
    (host) => {
      expect(isLoopback(host)).toBe(false);
    },
  );
});
