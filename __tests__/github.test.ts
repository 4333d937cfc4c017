// The GitHub side's pure parts: the comment's marker and body, where a docs pull request link
// points, where an event points without asking GitHub, and the warning for each GitHub fault.
import { describe, expect, it } from '@jest/globals';
import * as z from 'zod/mini';
import type { GitHubApi } from '../src/github/client.js';
import { runContext } from '../__fixtures__/github-world.js';
import MarkdownIt from 'markdown-it';
import { commentBody, commentMarker, type CommentState } from '../src/github/comment.js';
import { inert } from '../src/core/untrusted.js';
import { docsPullRequest, isDocsPullPage, pullRequestOf } from '../src/core/pull-request.js';
import { previewUrl } from '../src/core/untrusted.js';
import { describeGitHubFault, faultOf, identityFault, type GitHubOperation } from '../src/github/errors.js';
import { ActionFailure } from '../src/service/errors.js';
import { eventHasThread, findThread } from '../src/github/target.js';
import { parseEvent } from '../src/core/event.js';
import { redactAlso } from '../src/core/secrets.js';

const run = runContext({ sha: 'abc' });

const markdown = new MarkdownIt({ html: true, linkify: true });
/** The comment as GitHub would render it. */
const render = (text: string) => markdown.render(text);
/** The rendered text outside code spans and tags: where GitHub finds mentions and references. */
const live = (html: string) => html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/<[^>]*>/g, ' ');

describe('commentMarker', () => {
  const key = { projectId: 'p', prompt: 'Document the CLI' };
  it('is the same for a re-run and differs per step, project and prompt (matrix legs)', () => {
    const marker = commentMarker(run, key);
    expect(marker).toMatch(/^<!-- agent-job-action:[0-9a-f]{24} -->$/);
    expect(commentMarker({ ...run, runId: 43, runAttempt: 2 }, key)).toBe(marker);
    expect(commentMarker({ ...run, action: 'docs2' }, key)).not.toBe(marker);
    expect(commentMarker(run, { ...key, projectId: 'q' })).not.toBe(marker);
    expect(commentMarker(run, { ...key, prompt: 'Document the SDK' })).not.toBe(marker);
    expect(commentMarker(run, { projectId: 'p', jobId: 'j1' })).not.toBe(
      commentMarker(run, { projectId: 'p', jobId: 'j2' }),
    );
  });
});

describe('commentBody', () => {
  const base: CommentState = {
    jobId: 'job_1',
    ended: true,
    runUrl: 'https://github.com/acme/app/actions/runs/42',
  };
  const body = (state: Partial<CommentState>) => commentBody('<!-- m -->', { ...base, ...state });

  it('says what happened, for each way a job ends', () => {
    expect(body({ ended: false })).toContain('⏳ **Working**');
    const done = body({
      job: { id: 'job_1', status: 'completed', prLink: 'https://github.com/acme/docs/pull/3' },
      waitedMs: 65_000,
    });
    expect(done).toContain('✅ **Completed**: <a href="https://github.com/acme/docs/pull/3">');
    expect(done).toContain('time taken 1m 5s');
    expect(body({ job: { id: 'job_1', status: 'completed', prLink: null } })).toContain('with no changes');
    expect(body({ job: { id: 'job_1', status: 'failed' }, failure: 'Agent job job_1 failed.' })).toContain(
      '❌ **Failed**: `Agent job job_1 failed.`',
    );
    expect(body({ job: { id: 'job_1', status: 'archived' }, failure: 'x' })).toContain('🗄️ **Archived**');
    expect(body({ job: { id: 'job_1', status: 'active' }, failure: 'x', timedOut: true })).toContain(
      '⌛ **Timed out**',
    );
    expect(body({ job: { id: 'job_1', status: 'active' }, failure: 'x', cancelled: true })).toContain(
      '🛑 **Cancelled**',
    );
    expect(body({ job: { id: 'job_1', status: 'active' } })).toContain('⏩ **Started**');
    expect(body({})).toMatch(/^<!-- m -->\n/);
    expect(body({})).toContain('<a href="https://github.com/acme/app/actions/runs/42">workflow run</a>');
  });

  it('makes service text inert: no HTML, no @mention, no second marker, no javascript: link', () => {
    const text = body({
      jobId: '<!-- agent-job-action:x -->',
      job: { id: 'j', status: 'failed' },
      failure: 'Agent job failed: "@everyone <img src=x onerror=alert(1)> -->"',
    });
    const html = render(text);
    expect(html).not.toMatch(/<img|<!-- agent-job-action:x/);
    expect(live(html)).not.toMatch(/@everyone/);
    expect(html).toContain(
      '<code>Agent job failed: &quot;@everyone &lt;img src=x onerror=alert(1)&gt; --&gt;&quot;</code>',
    );
    const link = body({ job: { id: 'j', status: 'completed', prLink: 'javascript:alert(1)' } });
    expect(render(link)).not.toContain('<a href="javascript');
  });

  // Rendered by a CommonMark renderer with GitHub's extended autolinks (linkify) and raw HTML on,
  // as GitHub renders a comment; mentions and references are then looked for in the rendered
  // text outside code, where GitHub looks for them.
  const hostile = [
    '[Re-auth](https://evil.example/l)',
    '![p](https://evil.example/p.png)',
    '**click** _here_',
    'acme/other#1 and #2 and GH-3',
    '@octocat &#64;team \\@someone',
    'https://evil.example/bare www.evil.example',
    '<https://evil.example/auto>',
    '<a href="https://evil.example">html</a>',
    '`code` ``two`` and a lone `',
    '[ref]: https://evil.example/ref',
  ];

  it.each(hostile)('renders service text as text: %s', (said) => {
    const states: Partial<CommentState>[] = [
      { job: { id: 'job_1', status: 'active' }, failure: `The service said: ${said}`, cancelled: true },
      { jobId: said, job: { id: said, status: said } },
      { job: { id: 'job_1', status: 'completed', prLink: said } },
      { job: { id: 'job_1', status: 'completed', prLink: `https://github.com/acme/docs/pull/3 ${said}` } },
    ];
    for (const state of states) {
      const html = render(body(state));
      // The only links are the workflow run, and the docs PR when it is a pull request URL.
      expect(html.match(/<a [^>]*>/g) ?? []).toEqual([
        '<a href="https://github.com/acme/app/actions/runs/42">',
      ]);
      expect(html).not.toMatch(/<img|<em>|<strong>click/);
      expect(live(html)).not.toMatch(/@[A-Za-z0-9]|[\w.-]+\/[\w.-]+#\d|(^|\s)#\d|GH-\d|evil\.example/);
    }
  });

  it('links the docs pull request, and only a pull request URL', () => {
    const html = render(
      body({ job: { id: 'job_1', status: 'completed', prLink: 'https://github.com/acme/docs/pull/3' } }),
    );
    expect(html).toContain(
      '<a href="https://github.com/acme/docs/pull/3"><code>https://github.com/acme/docs/pull/3</code></a>',
    );
    const notPr = render(
      body({ job: { id: 'job_1', status: 'completed', prLink: 'https://github.com/acme/docs/issues/3' } }),
    );
    expect(notPr).not.toContain('href="https://github.com/acme/docs/issues/3"');
    expect(notPr).toContain('<code>https://github.com/acme/docs/issues/3</code>');
  });

  it('fences text with backticks in a longer run of backticks, and keeps it exact', () => {
    expect(inert('a `b` c')).toBe('``a `b` c``');
    expect(inert('``x``')).toBe('``` ``x`` ```');
    expect(inert('`')).toBe('`` ` ``');
    expect(inert(' ')).toBe('');
    expect(render(inert('``x`` y ```'))).toBe('<p><code>``x`` y ```</code></p>\n');
    expect(inert('a\nb\r\n::add-mask::x')).toBe('`a b ::add-mask::x`');
  });

  it('redacts a secret and stays far under 65,536 characters whatever the service sends', () => {
    const secret = 'ghs_CommentSecret000000000000000000000009';
    // Registered for redaction only: the runner's add-mask line would be noise in the test output.
    redactAlso(secret);
    const text = body({
      job: { id: 'j', status: secret.repeat(3) },
      failure: `${secret} ${'x'.repeat(100_000)}`,
    });
    expect(text).not.toContain(secret.slice(0, 12));
    expect(text.length).toBeLessThan(5_000);
  });
});

describe('pullRequestOf', () => {
  it.each([
    [
      'https://github.com/acme/docs/pull/12',
      'https://github.com',
      { owner: 'acme', repo: 'docs', number: 12 },
    ],
    [
      'https://ghe.example.com/acme/docs.site/pull/3/',
      'https://ghe.example.com',
      { owner: 'acme', repo: 'docs.site', number: 3 },
    ],
    ['https://github.com/acme/docs/pull/12/files', 'https://github.com', undefined],
    ['https://github.com/acme/docs/issues/12', 'https://github.com', undefined],
    ['https://gitlab.com/acme/docs/pull/12', 'https://github.com', undefined],
    ['http://github.com/acme/docs/pull/12', 'https://github.com', undefined],
    ['https://github.com.evil.example/acme/docs/pull/12', 'https://github.com', undefined],
    ['not a url', 'https://github.com', undefined],
  ])('%s on %s', (link, server, expected) => {
    expect(pullRequestOf(link, server)).toEqual(expected);
  });
});

describe('docsPullRequest: the pull request the prLink output carries, and on which GitHub', () => {
  const ghes = 'https://ghe.example.com';
  const docs = { owner: 'acme', repo: 'docs', number: 4 };
  it.each([
    ["on the run's GitHub", `${ghes}/acme/docs/pull/4`, ghes, { pr: docs, home: true }],
    [
      'on github.com from an Enterprise run',
      'https://github.com/acme/docs/pull/4',
      ghes,
      { pr: docs, home: false },
    ],
    [
      'on github.com from a github.com run',
      'https://github.com/acme/docs/pull/4',
      'https://github.com',
      { pr: docs, home: true },
    ],
    // What the prLink output refuses is no pull request, though a URL parser would read one.
    ['with a line break', `${ghes}/acme/docs/pull/4\n`, ghes, undefined],
    ['with a tab inside', `${ghes}/acme/do\tcs/pull/4`, ghes, undefined],
    ['with an upper-case scheme', `HTTPS://ghe.example.com/acme/docs/pull/4`, ghes, undefined],
    ['on neither', 'https://gitlab.com/acme/docs/pull/4', ghes, undefined],
  ])('%s', (_, link, server, expected) => {
    expect(docsPullRequest(link, server)).toEqual(expected);
  });
});

describe('isDocsPullPage: a docs pull request as a dispatch names it', () => {
  it.each([
    'https://github.com/acme/docs/pull/12',
    'https://github.example.com/acme/docs/pull/3',
    // An Enterprise Managed User's repository: the owner carries an underscore.
    'https://github.com/mona_acme/docs/pull/7',
    'http://127.0.0.1:4321/acme/docs/pull/1',
  ])('takes %s', (link) => expect(isDocsPullPage(link)).toBe(true));

  it.each([
    'javascript:alert(1)',
    'https://github.com/acme/docs/issues/12',
    'https://github.com/acme/docs/pull/0',
    'https://github.com/acme/docs/pull/12\n::error::x',
    `https://github.com/acme/${'d'.repeat(500)}/pull/1`,
  ])('refuses %s', (link) => expect(isDocsPullPage(link)).toBe(false));
});

describe('previewUrl: only a plain https URL is shown', () => {
  it.each([
    ['https://acme-docs-pr-3.preview.example/', true],
    ['http://acme-docs-pr-3.preview.example/', false],
    ['https://user:secret@preview.example/', false],
    ['https://preview.example/a b', false],
    [`https://preview.example/${'a'.repeat(1990)}`, false],
    [undefined, false],
  ])('%s: %s', (url, shown) => expect(previewUrl(url) !== undefined).toBe(shown));
});

describe('findThread without asking GitHub', () => {
  const api = new Proxy({} as GitHubApi, {
    get: () => () => Promise.reject(new Error('no request expected')),
  });
  const signal = new AbortController().signal;

  it('reads the pull request, and tells a fork by its head repository', async () => {
    const payload = {
      pull_request: {
        number: 7,
        head: { repo: { full_name: 'someone/app' } },
        base: { repo: { full_name: 'acme/app' } },
      },
    };
    expect(await findThread(api, runContext({ payload }), signal)).toEqual({
      thread: { owner: 'acme', repo: 'app', number: 7, pull: true, fork: true },
    });
  });

  it('counts no fork where the workflow runs with the base repository token', async () => {
    const payload = {
      pull_request: {
        number: 7,
        head: { repo: { full_name: 'someone/app' } },
        base: { repo: { full_name: 'acme/app' } },
      },
    };
    const target = await findThread(api, runContext({ eventName: 'pull_request_target', payload }), signal);
    expect(target.thread).toMatchObject({ number: 7, fork: false });
  });

  it('reads an issue, and a pull request commented on as an issue', async () => {
    const issue = await findThread(
      api,
      runContext({ eventName: 'issues', payload: { issue: { number: 3 } } }),
      signal,
    );
    expect(issue.thread).toMatchObject({ number: 3, pull: false });
    const onPr = await findThread(
      api,
      runContext({ eventName: 'issue_comment', payload: { issue: { number: 4, pull_request: {} } } }),
      signal,
    );
    expect(onPr.thread).toMatchObject({ number: 4, pull: true, fork: false });
  });

  it('has none for other events, and for a push that deleted its branch', async () => {
    expect(eventHasThread(parseEvent('schedule', {}))).toBe(false);
    expect(eventHasThread(parseEvent('workflow_dispatch', {}))).toBe(false);
    expect(await findThread(api, runContext({ eventName: 'release' }), signal)).toEqual({
      none: 'a release event has no pull request or issue',
    });
    expect(
      await findThread(api, runContext({ eventName: 'push', payload: { deleted: true } }), signal),
    ).toEqual({
      none: 'the push deleted its ref',
    });
    expect(
      await findThread(
        api,
        runContext({ eventName: 'push', payload: { deleted: true, ref: 'refs/tags/v2' } }),
        signal,
      ),
    ).toEqual({ none: 'the push deleted the tag v2' });
  });
});

describe('describeGitHubFault', () => {
  const op: GitHubOperation = {
    what: 'post the comment on acme/app#7',
    token: 'githubToken',
    permission: 'pull-requests: write',
    repo: 'acme/app',
  };
  const fault = (status: number, message = 'm', headers: Record<string, string> = {}) =>
    Object.assign(new Error(message), { status, response: { data: { message }, headers } });

  it.each([
    [
      fault(401, 'Bad credentials'),
      'GitHub rejected githubToken (401 "Bad credentials"); it is missing, expired or revoked.',
    ],
    [
      fault(403, 'Resource not accessible by integration'),
      'githubToken needs pull-requests: write on acme/app',
    ],
    [
      fault(403, 'API rate limit exceeded', { 'x-ratelimit-remaining': '0' }),
      'rate limit of githubToken is used up (403)',
    ],
    [fault(404), 'it is gone, or githubToken cannot see acme/app.'],
    [fault(410), 'issues are turned off or the issue was deleted.'],
    [fault(422, 'Validation Failed'), 'GitHub refused it (422 "Validation Failed").'],
    [fault(503, 'unavailable'), 'GitHub answered 503 "unavailable"'],
    [
      Object.assign(new Error('fetch failed'), { status: 500 }),
      'GitHub did not answer (fetch failed). Check GITHUB_API_URL',
    ],
  ])('%#', (error, text) => {
    const message = describeGitHubFault(error, op);
    expect(message.startsWith('Could not post the comment on acme/app#7')).toBe(true);
    expect(message).toContain(text);
    expect(message).not.toMatch(/\n/);
  });

  it('explains the read-only token of a fork', () => {
    expect(describeGitHubFault(fault(403), { ...op, fork: true })).toContain(
      "from a fork, the workflow's token is read-only",
    );
  });

  it('quotes what GitHub said, so it cannot start a workflow command', () => {
    expect(describeGitHubFault(fault(422, '\n::error::pwned'), op)).toContain('"\\u000a::error::pwned"');
  });

  it("says what the identity query's 404 means: no GraphQL API where it was asked, not a thing gone", () => {
    const message = describeGitHubFault(identityFault(fault(404, 'Not Found')), op);
    expect(message).toBe(
      `Could not learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to post the comment on acme/app#7 (404 "Not Found"): GitHub has no GraphQL API where the action asked, which is GITHUB_API_URL's /graphql (/api/graphql on GitHub Enterprise Server). Check GITHUB_API_URL, and any proxy between the runner and GitHub.`,
    );
    expect(message).not.toContain('it is gone');
  });
});

describe('faultOf: the one reading of a GitHub fault', () => {
  const answered = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

  it('tells a final fault from a passing one, and a thing GitHub no longer has', () => {
    expect(faultOf(answered(404))).toEqual({
      status: 404,
      final: true,
      passing: false,
      gone: true,
      notFound: true,
      identity: false,
      said: 'GitHub answered 404',
    });
    expect(faultOf(answered(422))).toMatchObject({
      final: false,
      passing: false,
      gone: true,
      notFound: false,
    });
    for (const status of [401, 403, 410])
      expect(faultOf(answered(status))).toMatchObject({ final: true, gone: false });
    for (const status of [500, 502, 408])
      expect(faultOf(answered(status))).toMatchObject({ final: false, passing: true });
    expect(faultOf(answered(429)).passing).toBe(false);
  });

  it("takes no answer at all as passing, but not a timeout, a reply of the wrong shape or the action's own failure", () => {
    expect(faultOf(new TypeError('fetch failed'))).toMatchObject({ passing: true, said: 'fetch failed' });
    expect(faultOf(new TypeError('fetch failed')).status).toBeUndefined();
    expect(faultOf(new DOMException('GitHub did not answer in time.', 'TimeoutError')).passing).toBe(false);
    expect(faultOf(Object.assign(new Error('cut'), { name: 'AbortError' })).passing).toBe(false);
    const shape = z.object({ login: z.string() }).safeParse({}).error;
    expect(faultOf(shape).passing).toBe(false);
    expect(faultOf(new ActionFailure('no')).passing).toBe(false);
    expect(faultOf(undefined)).toMatchObject({ passing: true, final: false, gone: false });
  });

  it("knows a fault of the identity query as that query's", () => {
    expect(faultOf(identityFault(answered(502))).identity).toBe(true);
    expect(faultOf(answered(502)).identity).toBe(false);
  });
});
