// Labels and reviewers on the docs pull request, and a bad GitHub input refused before any
// request: run() in this process against both emulators over real sockets. That the plain path
// never loads the GitHub side's chunks of dist/ needs the bundle: e2e.github-docs.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  notices,
  pullRequestRun,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { DOCS, DOCS_TOKEN, gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('the docs pull request', () => {
  it('gets labels, user and team reviewers with docsToken, while the comment uses githubToken', async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await run({
      inputs: inputsFor(service, {
        comment: 'true',
        labels: 'docs, agent\nneeds-review',
        reviewers: 'octocat\nacme/docs-team, hubot',
        docsToken: DOCS_TOKEN,
      }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(docsPr.labels).toEqual(['docs', 'agent', 'needs-review']);
    expect(docsPr.reviewers).toEqual(['octocat', 'hubot']);
    expect(docsPr.teams).toEqual(['docs-team']);
    // One token per repository.
    for (const request of gh.requests) {
      const docs = request.path.includes(`/repos/${DOCS}/`);
      expect(request.token).toBe(docs ? DOCS_TOKEN : WORKFLOW_TOKEN);
    }
    expect(pr.comments).toHaveLength(1);
    // Both tokens masked before anything is printed (and run() checks no piece of either leaks).
    const masked = result.commands.filter((c) => c.name === 'add-mask').map((c) => c.data);
    expect(masked).toEqual(expect.arrayContaining([WORKFLOW_TOKEN, DOCS_TOKEN]));
  });

  it("on a thread, names the thread it documents in one note of the action's own, posted once: the next pass leaves it as it is", async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const step = (number: number) => ({
      inputs: inputsFor(service, { thread: 'true', trigger: '/docs', docsToken: DOCS_TOKEN }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(number) },
      event: pullRequestEvent(pr.number),
    });
    const first = await run(step(501));
    expect(first.code).toBe(0);
    expect(warnings(first)).toEqual([]);
    expect(docsPr.comments).toHaveLength(1);
    const [note] = docsPr.comments;
    expect(note?.body.split('\n')[0]).toBe(
      `<!-- agent-job-docs-of acme/app#${pr.number} job ${first.outputs.jobId ?? ''} -->`,
    );
    expect(note?.body).toContain(
      `📄 The docs for <a href="${gh.serverUrl}/acme/app/issues/${pr.number}">acme/app#${pr.number}</a>`,
    );
    expect(note?.login).toBe('docs-app[bot]');
    const before = gh.requests.length;
    const second = await run(step(502));
    expect(second.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(docsPr.comments).toEqual([note]);
    // One read of the docs PR's first page of comments, and no write there.
    const onDocs = gh.requests.slice(before).filter((r) => r.path.startsWith(`/repos/${DOCS}/issues/`));
    expect(onDocs.map((r) => r.route)).toEqual(['listComments']);
  });

  it('without docsToken, tries githubToken and says which token the docs repository needs', async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await run(pullRequestRun(service, gh, pr.number, { labels: 'docs' }));
    expect(result.code).toBe(0);
    expect(docsPr.labels).toEqual([]);
    expect(warnings(result)).toEqual([
      `Could not add the labels to ${DOCS}#${docsPr.number} (404 "Not Found"): ${DOCS} or the pull request is not visible to docsToken. The workflow's own token reaches only this repository: pass a token for ${DOCS} as docsToken.`,
    ]);
  });

  it('on another host: a notice, and nothing sent', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({
      final: { status: 'completed', prLink: 'https://gitlab.example.com/acme/docs/-/merge_requests/3' },
    });
    const result = await run(
      pullRequestRun(service, gh, pr.number, { labels: 'docs', reviewers: 'octocat', docsToken: DOCS_TOKEN }),
    );
    expect(result.code).toBe(0);
    expect(gh.requests).toEqual([]);
    expect(notices(result)).toEqual([
      `Labels and reviewers not set: https://gitlab.example.com/acme/docs/-/merge_requests/3 is not a pull request on ${gh.serverUrl} or https://github.com.`,
    ]);
  });

  it('not for a job that failed or changed nothing', async () => {
    const gh = await github();
    const { pr } = world(gh);
    for (const final of [{ status: 'failed' }, { status: 'completed', prLink: null }]) {
      const service = await emulator({ final });
      const result = await run(
        pullRequestRun(service, gh, pr.number, { labels: 'docs', docsToken: DOCS_TOKEN }),
      );
      expect(result.code).toBe(final.status === 'failed' ? 1 : 0);
    }
    expect(gh.requests).toEqual([]);
  });

  it('a job that fails leaves the step failed with its own error, whatever GitHub does', async () => {
    const gh = await github();
    const { pr } = world(gh, false);
    const service = await emulator({ final: { status: 'archived' } });
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true', labels: 'docs' }));
    expectFailure(result, 'was archived before it completed.');
    expect(result.outputs.status).toBe('archived');
  });
});

describe('the plain path', () => {
  it('refuses a bad GitHub input before any request', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator();
    const result = await run({
      inputs: inputsFor(service, { comment: 'true', reviewers: 'octo cat' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(1),
    });
    expectFailure(result, 'Input "reviewers" has "octo cat"');
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});
