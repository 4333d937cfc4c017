// Each token to its own host, each host through its own proxy rules, and writes only on the docs
// pull request: run() in this process against the service and two GitHub emulators over real
// sockets, one playing a GitHub Enterprise Server (the run's own GitHub) and one playing
// github.com (where the docs repository lives), put in the place of github.com for the run.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GitHubEmulator } from '../emulators/github.js';
import {
  emulators,
  errors,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  notices,
  pullRequestRun,
  runHere,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  pushTo,
  APP,
  BOT,
  DOCS,
  DOCS_TOKEN,
  gitHubEnv,
  pullRequestEvent,
  pushEvent,
  world,
} from '../__fixtures__/github-world.js';
import { startConnectProxy, type TestProxy } from '../__fixtures__/proxy.js';
import type { RunOptions } from '../__fixtures__/runner.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { MakeGitHub } from '../src/main.js';
import { connectedDuring } from '../__fixtures__/github-api.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** The GitHub side as the action makes it, with `com` standing where github.com would be. */
function withGitHubCom(com: GitHubEmulator): MakeGitHub {
  return async (request, run, log, clock) =>
    (await import('../src/github/index.js')).startGitHub(request, run, log, clock, {
      serverUrl: com.serverUrl,
      apiUrl: com.apiUrl,
    });
}

/** An Enterprise Server run in acme/app, whose docs pull request is in acme/docs on github.com. */
async function enterpriseAndGitHubCom(
  options: { ent?: Parameters<typeof github>[0]; com?: Parameters<typeof github>[0] } = {},
) {
  const ent = await github({ prefix: '/api/v3', ...options.ent });
  const com = await github(options.com);
  const { pr } = world(ent);
  // On github.com the docs token reaches acme/docs; the Enterprise token means nothing there.
  com.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
  com.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: '*', write: [APP, DOCS] });
  const docsPr = com.thread(DOCS);
  return { ent, com, pr, docsPr, docsLink: `${com.serverUrl}/${DOCS}/pull/${docsPr.number}` };
}

/** Every request `gh` received carried `token`. */
function onlyToken(gh: GitHubEmulator, token: string): void {
  expect(gh.requests.map((r) => r.token)).toEqual(gh.requests.map(() => token));
}

const asked = { comment: 'true', labels: 'docs', reviewers: 'hubot', autoMerge: 'squash' };

describe('an Enterprise Server run whose docs pull request is on github.com', () => {
  it('without docsToken: one warning, and nothing at all sent to github.com', async () => {
    const { ent, com, pr, docsPr, docsLink } = await enterpriseAndGitHubCom();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await runHere(
      { inputs: inputsFor(service, asked), env: gitHubEnv(ent), event: pullRequestEvent(pr.number) },
      { github: withGitHubCom(com) },
    );
    expect(result.code).toBe(0);
    expect(com.requests).toEqual([]);
    expect(docsPr.autoMerge).toBeUndefined();
    expect(warnings(result)).toEqual([
      `Labels, reviewers and auto-merge not set: the docs pull request is on ${com.serverUrl} (${DOCS}#${docsPr.number}), where githubToken (the token for ${ent.serverUrl}) is never sent and no docsToken was given; pass a token for it as docsToken.`,
    ]);
    // The run's own GitHub still gets its comment, with its own token.
    expect(pr.comments).toHaveLength(1);
    onlyToken(ent, WORKFLOW_TOKEN);
  });

  it('with docsToken: labels, reviewers and auto-merge on github.com carry docsToken alone', async () => {
    const { ent, com, pr, docsPr, docsLink } = await enterpriseAndGitHubCom();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await runHere(
      {
        inputs: inputsFor(service, { ...asked, docsToken: DOCS_TOKEN }),
        env: gitHubEnv(ent),
        event: pullRequestEvent(pr.number),
      },
      { github: withGitHubCom(com) },
    );
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(docsPr.labels).toEqual(['docs']);
    expect(docsPr.reviewers).toEqual(['hubot']);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    onlyToken(com, DOCS_TOKEN);
    onlyToken(ent, WORKFLOW_TOKEN);
    expect(ent.requests.some((r) => r.path.includes(DOCS))).toBe(false);
  });

  it('leaves no connection open: each host’s client is closed once run() returns', async () => {
    const { ent, com, pr, docsPr, docsLink } = await enterpriseAndGitHubCom();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    let code: number | null = null;
    const sockets = await connectedDuring(async () => {
      ({ code } = await runHere(
        {
          inputs: inputsFor(service, { ...asked, docsToken: DOCS_TOKEN }),
          env: gitHubEnv(ent),
          event: pullRequestEvent(pr.number),
        },
        { github: withGitHubCom(com) },
      ));
    });
    expect(code).toBe(0);
    expect(pr.comments).toHaveLength(1);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    const ports = new Set(sockets.map((s) => s.port));
    expect(ports).toContain(ent.port);
    expect(ports).toContain(com.port);
    expect(sockets.filter((s) => !s.socket.destroyed).map((s) => s.port)).toEqual([]);
  });

  it('a thread reads its docs pull request there with docsToken only; without one it says so and starts anew', async () => {
    const { ent, com, pr, docsLink } = await enterpriseAndGitHubCom();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (extra: Record<string, string>, head: string): RunOptions => ({
      inputs: inputsFor(service, { thread: 'true', ...extra }),
      env: gitHubEnv(ent),
      event: pushTo(pr, head),
    });
    const deps = { github: withGitHubCom(com) };
    const first = await runHere(options({ docsToken: DOCS_TOKEN }, '1'.repeat(40)), deps);
    expect(first.outputs.mode).toBe('created');

    // With docsToken: the docs pull request is open, so the thread's job is followed up.
    const followed = await runHere(options({ docsToken: DOCS_TOKEN }, '2'.repeat(40)), deps);
    expect(followed.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    // The first run named the thread on its docs PR there; this one reads the docs PR's state, finds
    // the note in place, and asks whose the docsToken is to know it for its own.
    expect(com.requests.map((r) => r.route)).toEqual([
      'listComments',
      'createComment',
      'getPull',
      'listComments',
      'graphql',
    ]);
    onlyToken(com, DOCS_TOKEN);

    // Without: githubToken is not sent there; the state cannot be read, so a new job, said once.
    const before = com.requests.length;
    const alone = await runHere(options({}, '3'.repeat(40)), deps);
    expect(alone.code).toBe(0);
    expect(com.requests.length).toBe(before);
    expect(alone.outputs.mode).toBe('created');
    expect(warnings(alone)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^The docs pull request of agent job \\S+ is on ${com.serverUrl} \\(${DOCS}#\\d+\\), where githubToken \\(the token for ${ent.serverUrl}\\) is never sent and no docsToken was given, so whether it is still open cannot be read: a new job is started\\.$`,
        ),
      ),
    ]);
    onlyToken(ent, WORKFLOW_TOKEN);
  });
});

describe('each GitHub host through its own proxy rules', () => {
  // Names only the proxy resolves: a request that reaches one went through the proxy. Plain http:
  // run() in this process cannot trust a test CA (Node reads NODE_EXTRA_CA_CERTS at start-up, and
  // the test's environment is not the process's), so the proxy variable is http's here; the rules
  // (@actions/http-client's) pick it by the URL's scheme, and e2e.proxy.test.ts takes GitHub
  // through HTTPS_PROXY over TLS in the bundle.
  const ENTERPRISE = 'ghe.corp.test';
  const COM = 'github.test';
  let proxy: TestProxy;
  beforeAll(async () => {
    proxy = await startConnectProxy({ [ENTERPRISE]: '127.0.0.1', [COM]: '127.0.0.1' });
  });
  afterAll(() => proxy.close());

  const hosts = () => enterpriseAndGitHubCom({ ent: { hostname: ENTERPRISE }, com: { hostname: COM } });

  it('a proxy for all: both hosts through it, each with its own token', async () => {
    const { ent, com, pr, docsPr, docsLink } = await hosts();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const before = proxy.requests.length;
    const result = await runHere(
      {
        inputs: inputsFor(service, { ...asked, docsToken: DOCS_TOKEN }),
        env: { ...gitHubEnv(ent), HTTP_PROXY: proxy.url },
        event: pullRequestEvent(pr.number),
      },
      { github: withGitHubCom(com) },
    );
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    const tunnels = new Set(proxy.requests.slice(before).map((r) => r.target));
    expect(tunnels).toEqual(new Set([`${ENTERPRISE}:${ent.port}`, `${COM}:${com.port}`]));
    onlyToken(com, DOCS_TOKEN);
    onlyToken(ent, WORKFLOW_TOKEN);
  });

  it('no_proxy naming github.com: that host is reached directly, the Enterprise one still through the proxy', async () => {
    const { ent, com, pr, docsPr, docsLink } = await hosts();
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const before = proxy.requests.length;
    const result = await runHere(
      {
        inputs: inputsFor(service, { ...asked, docsToken: DOCS_TOKEN }),
        env: { ...gitHubEnv(ent), http_proxy: proxy.url, no_proxy: `localhost,${COM}` },
        event: pullRequestEvent(pr.number),
      },
      { github: withGitHubCom(com) },
    );
    expect(result.code).toBe(0);
    // Directly, this runner cannot even resolve the name: proof that the proxy was skipped.
    const unresolved = (what: string) =>
      expect.stringMatching(new RegExp(`^Could not ${what} on ${DOCS}#\\d+: GitHub did not answer \\(`));
    expect(warnings(result)).toEqual([
      expect.stringMatching(/^Could not add the labels to acme\/docs#\d+: GitHub did not answer \(/),
      unresolved('request reviewers'),
      unresolved('enable auto-merge'),
    ]);
    expect(com.requests).toEqual([]);
    expect(docsPr.autoMerge).toBeUndefined();
    expect(pr.comments).toHaveLength(1);
    const tunnels = new Set(proxy.requests.slice(before).map((r) => r.target));
    expect(tunnels).toEqual(new Set([`${ENTERPRISE}:${ent.port}`]));
  });
});

describe('writes only on the docs pull request', () => {
  it("a prLink naming the run's own pull request: one warning, no label, reviewer or auto-merge on it", async () => {
    const gh = await github();
    const { pr } = world(gh);
    // Another spelling of the same pull request: GitHub's names ignore case.
    const codeLink = `${gh.serverUrl}/ACME/App/pull/${pr.number}`;
    const service = await emulator({ final: { status: 'completed', prLink: codeLink } });
    const result = await runHere({
      // No docsToken: githubToken, which may write on acme/app, would have done it.
      inputs: inputsFor(service, asked),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe(codeLink);
    expect(warnings(result)).toEqual([
      `Labels, reviewers and auto-merge not set: the service named ACME/App#${pr.number}, the pull request this run is about, as its docs pull request; nothing is written on it.`,
    ]);
    expect([pr.labels, pr.reviewers, pr.autoMerge]).toEqual([[], [], undefined]);
    const routes = gh.requests.map((r) => r.route);
    for (const write of ['addLabels', 'requestReviewers', 'getPull', 'enableAutoMerge'] as const)
      expect(routes).not.toContain(write);
  });

  it('a push whose pull request the service names: found through GitHub, and left alone', async () => {
    const gh = await github();
    world(gh);
    const pushed = '6'.repeat(40);
    const pr = gh.thread(APP, { commits: [pushed] });
    const service = await emulator({
      final: { status: 'completed', prLink: `${gh.serverUrl}/${APP}/pull/${pr.number}` },
    });
    const result = await runHere({
      inputs: inputsFor(service, asked),
      env: gitHubEnv(gh),
      event: pushEvent(pushed),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([
      `Labels, reviewers and auto-merge not set: the service named ${APP}#${pr.number}, the pull request this run is about, as its docs pull request; nothing is written on it.`,
    ]);
    expect([pr.labels, pr.reviewers, pr.autoMerge]).toEqual([[], [], undefined]);
  });

  it.each([
    // A push reads githubToken only for what needs it; a workflow may also set it empty.
    ['a push', () => pushEvent('7'.repeat(40)), {}],
    ['a pull request', () => pullRequestEvent(1), { githubToken: '' }],
  ])(
    '%s with docsToken alone (no githubToken): the docs pull request still gets its labels',
    async (_, event, extra) => {
      const gh = await github();
      const { docsPr, docsLink } = world(gh);
      const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
      const result = await runHere({
        inputs: inputsFor(service, { labels: 'docs', docsToken: DOCS_TOKEN, ...extra }),
        env: gitHubEnv(gh),
        event: event(),
      });
      expect(result.code).toBe(0);
      expect(warnings(result)).toEqual([]);
      expect(docsPr.labels).toEqual(['docs']);
      for (const request of gh.requests)
        expect(request.token).toBe(request.path.includes(`/repos/${DOCS}/`) ? DOCS_TOKEN : WORKFLOW_TOKEN);
    },
  );

  it.each([
    ['a control character in it', (link: string) => `${link}\n`],
    ['an upper-case scheme', (link: string) => link.replace(/^http/, 'HTTP')],
  ])('a prLink refused as an output (%s): nothing written', async (_, spoil) => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: spoil(docsLink) } });
    const result = await runHere(pullRequestRun(service, gh, pr.number, { ...asked, docsToken: DOCS_TOKEN }));
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe('');
    expect(warnings(result)).toEqual([expect.stringContaining('the prLink output is left empty')]);
    expect(notices(result)).toEqual([
      expect.stringMatching(/^Labels, reviewers and auto-merge not set: .* is not a pull request on /),
    ]);
    expect([docsPr.labels, docsPr.reviewers, docsPr.autoMerge]).toEqual([[], [], undefined]);
    expect(gh.requests.filter((r) => r.path.includes(DOCS))).toEqual([]);
  });
});

describe('the identity query', () => {
  it('a failed one is named as such where a re-run reads its own status', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    gh.fail('graphql', { status: 401, message: 'Bad credentials' });
    const result = await runHere({
      inputs: inputsFor(service, { status: 'true' }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ATTEMPT: '2' },
      event: pushTo(pr, '5'.repeat(40)),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([
      `Could not learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to read what earlier runs left on GitHub: GitHub rejected githubToken (401 "Bad credentials"); it is missing, expired or revoked.`,
    ]);
  });

  it('a failed one is named as such', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    gh.fail('graphql', { status: 401, message: 'Bad credentials' });
    const result = await runHere(pullRequestRun(service, gh, pr.number, { thread: 'true' }));
    expectFailure(
      result,
      `Could not learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to read what earlier runs of this thread left on GitHub`,
    );
    expect(errors(result)[0]).toContain('GitHub rejected githubToken (401 "Bad credentials")');
    expect(service.requests).toEqual([]);
  });

  it('a comment whose author the action cannot tell says why', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    gh.fail('graphql', { status: 401, message: 'Bad credentials' });
    const result = await runHere(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([
      `Could not learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to post the comment on ${APP}#${pr.number}: GitHub rejected githubToken (401 "Bad credentials"); it is missing, expired or revoked.`,
    ]);
    expect(pr.comments).toEqual([]);
  });
});
