import type { GitHubEmulator } from '../emulators/github.js';
import { parseEvent } from '../src/core/event.js';
import type { RunContext } from '../src/core/run-context.js';
import { WORKFLOW_TOKEN } from './runner.js';

/** A token for the docs repository only, as a GitHub App's installation token would be. */
export const DOCS_TOKEN = 'ghs_DocsAppToken00000000000000000000000002';
export const BOT = 'github-actions[bot]';
export const APP = 'acme/app';
export const DOCS = 'acme/docs';

/** A commit's SHA made of one digit, so a test's commits read in order: sha(1), sha(2) … */
export const sha = (digit: number): string => String(digit).repeat(40);

/** A file of a comparison or a pull request, modified by one added line. */
export const changedFile = (filename: string) => ({
  filename,
  status: 'modified',
  additions: 1,
  deletions: 0,
  patch: '@@ +1 @@',
});

/**
 * The usual set-up: the workflow runs in acme/app, whose own token (`github.token`) may write
 * there and nowhere else; the docs live in acme/docs, reachable with DOCS_TOKEN. octocat, who
 * opens the pull requests and writes the comments of these tests, has write access to acme/app:
 * a member of the organisation as such has none (the gate asks GitHub).
 */
export function world(gh: GitHubEmulator, appWrite = true) {
  gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: appWrite ? [APP] : [] });
  gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
  gh.collaborator(APP, 'octocat', 'write');
  const pr = gh.thread(APP);
  const docsPr = gh.thread(DOCS);
  return { pr, docsPr, docsLink: `${gh.serverUrl}/${DOCS}/pull/${docsPr.number}` };
}

/** The runner's view of GitHub for a run in acme/app. */
export function gitHubEnv(gh: GitHubEmulator): Record<string, string> {
  return { GITHUB_API_URL: gh.apiUrl, GITHUB_SERVER_URL: gh.serverUrl, GITHUB_REPOSITORY: APP };
}

/**
 * A `pull_request` event for `number` in acme/app, opened by a member (octocat); `fork` names the
 * head repository.
 */
export function pullRequestEvent(number: number, fork?: string) {
  return {
    name: 'pull_request',
    payload: {
      action: 'opened',
      number,
      pull_request: {
        number,
        user: { login: 'octocat' },
        author_association: 'MEMBER',
        head: { repo: { full_name: fork ?? APP } },
        base: { repo: { full_name: APP } },
      },
      repository: { name: 'app', owner: { login: 'acme' } },
      sender: { login: 'octocat', type: 'User' },
    },
  };
}

/** A `pull_request` event for `number` in acme/app whose head is `head` (`synchronize` unless told). */
export function pullRequestAt(number: number, head: string, action = 'synchronize') {
  const event = pullRequestEvent(number);
  const { pull_request } = event.payload;
  return {
    ...event,
    payload: {
      ...event.payload,
      action,
      pull_request: { ...pull_request, head: { ...pull_request.head, sha: head } },
    },
  };
}

/**
 * A push to pull request `pr` as GitHub plays it: the pull request's head moves to `head`, and its
 * `pull_request` event (`synchronize` unless told) names it. A run of an older push finds the
 * head moved on (a newer push's run carries it).
 */
export function pushTo(pr: { number: number; headSha: string }, head: string, action = 'synchronize') {
  pr.headSha = head;
  return pullRequestAt(pr.number, head, action);
}

/**
 * A review comment on pull request `number` of acme/app at `head` (`pull_request_review_comment`,
 * `created`), as GitHub sends it for `comment`, made by octocat, a member.
 */
export function reviewCommentEvent(
  serverUrl: string,
  number: number,
  comment: { id: number; body: string },
  head?: string,
) {
  return {
    name: 'pull_request_review_comment',
    payload: {
      action: 'created',
      comment: {
        id: comment.id,
        body: comment.body,
        user: { login: 'octocat', type: 'User' },
        pull_request_review_id: 1,
        html_url: `${serverUrl}/${APP}/pull/${number}#discussion_r${comment.id}`,
        author_association: 'MEMBER',
      },
      pull_request: {
        number,
        head: { ...(head ? { sha: head } : {}), repo: { full_name: APP } },
        base: { repo: { full_name: APP } },
      },
      repository: { name: 'app', owner: { login: 'acme' } },
      sender: { login: 'octocat', type: 'User' },
    },
  };
}

/**
 * A `/docs`-style comment on pull request `number` of acme/app (`issue_comment`, `created` unless
 * told), by `login` with `association` to the repository.
 */
export function commentEvent(
  number: number,
  body: string,
  options: { login?: string; association?: string; action?: string; id?: number; type?: string } = {},
) {
  const { login = 'octocat', association = 'MEMBER', action = 'created', id = 9001, type = 'User' } = options;
  return {
    name: 'issue_comment',
    payload: {
      action,
      issue: { number, pull_request: { url: `https://api.github.com/repos/${APP}/pulls/${number}` } },
      comment: { id, body, user: { login }, author_association: association },
      repository: { name: 'app', owner: { login: 'acme' } },
      sender: { login, type },
    },
  };
}

export function pushEvent(after: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'push',
    payload: {
      ref: 'refs/heads/main',
      before: '1111111111111111111111111111111111111111',
      after,
      repository: { name: 'app', owner: { login: 'acme' } },
      ...extra,
    },
  };
}

/**
 * The run's context as the GitHub side reads it, for unit tests: a run in acme/app, on the event
 * `eventName` names (a pull request's unless told), its `payload` parsed as the runner's would be.
 */
export function runContext({
  eventName = 'pull_request',
  ...overrides
}: Partial<Omit<RunContext, 'event'>> & { eventName?: string } = {}): RunContext {
  const payload = overrides.payload ?? {};
  return {
    event: parseEvent(eventName, payload),
    payload,
    repo: { owner: 'acme', repo: 'app' },
    sha: 'head0000000',
    serverUrl: 'https://github.com',
    apiUrl: 'https://api.github.com',
    runId: 42,
    runAttempt: 1,
    workflow: 'docs',
    workflowRef: 'acme/app/.github/workflows/docs.yml@refs/heads/main',
    job: 'refresh',
    action: 'docs',
    actionRepository: '',
    actor: 'octocat',
    ...overrides,
  };
}
