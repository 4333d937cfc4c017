// A loopback stand-in for GitHub's REST API (and the GraphQL query and mutation the action makes),
// for the calls the action's GitHub side uses: repositories with issues and pull requests, comments
// and their reactions, labels, review requests, collaborators' roles, commit statuses, auto-merge,
// workflow dispatches, git refs, and tokens that each reach some repositories, some with write
// access (and, apart, with write access to their contents).
// Every REST request and every REST reply is checked against GitHub's published OpenAPI description.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  buildSchema,
  Kind,
  OperationTypeNode,
  parse as parseGraphQL,
  validate,
  type DocumentNode,
  type OperationDefinitionNode,
} from 'graphql';
import type { ChangedFile } from '../src/github/context.js';
import { gitHubContract, type GitHubSpec } from './github-openapi.js';

/**
 * GraphQL operations: `graphql` is the viewer query; `enableAutoMerge` the auto-merge mutation;
 * `draftPull` and `readyPull` turn a pull request into a draft and back (`convertPullRequestToDraft`,
 * `markPullRequestReadyForReview`).
 */
export type GitHubGraphQLRoute = 'graphql' | 'enableAutoMerge' | 'draftPull' | 'readyPull';

export type GitHubRoute =
  | GitHubGraphQLRoute
  | 'pullsOfCommit'
  | 'listIssues'
  | 'listComments'
  | 'createComment'
  | 'updateComment'
  | 'addLabels'
  | 'removeLabel'
  | 'requestReviewers'
  | 'compare'
  | 'listCommits'
  | 'getCommit'
  | 'listPullFiles'
  | 'listPulls'
  | 'getPull'
  | 'updatePull'
  | 'listPullCommits'
  | 'createIssueCommentReaction'
  | 'createReviewCommentReaction'
  | 'getCollaboratorPermission'
  | 'createStatus'
  | 'listStatuses'
  | 'createWorkflowDispatch'
  | 'createRef'
  | 'listMatchingRefs'
  | 'listDeployments'
  | 'listDeploymentStatuses'
  | 'deleteRef';

export const ROUTES: {
  route: Exclude<GitHubRoute, GitHubGraphQLRoute>;
  method: string;
  template: string;
  write: boolean;
  /** A write of the repository's contents (`contents: write`), which a token may lack beside others. */
  contents?: true;
  /** Its last parameter may hold slashes (the description's `x-multi-segment`), escaped or not. */
  rest?: true;
}[] = [
  {
    route: 'pullsOfCommit',
    method: 'GET',
    template: '/repos/{owner}/{repo}/commits/{commit_sha}/pulls',
    write: false,
  },
  // Templates match whole paths, segment by segment: `…/issues` is not `…/issues/{issue_number}/…`.
  { route: 'listIssues', method: 'GET', template: '/repos/{owner}/{repo}/issues', write: false },
  {
    route: 'listComments',
    method: 'GET',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    write: false,
  },
  {
    route: 'createComment',
    method: 'POST',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    write: true,
  },
  {
    route: 'updateComment',
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    write: true,
  },
  {
    route: 'addLabels',
    method: 'POST',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    write: true,
  },
  {
    route: 'removeLabel',
    method: 'DELETE',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    write: true,
  },
  { route: 'compare', method: 'GET', template: '/repos/{owner}/{repo}/compare/{basehead}', write: false },
  // Templates match whole paths, segment by segment: `…/commits` is not `…/commits/{ref}`.
  { route: 'listCommits', method: 'GET', template: '/repos/{owner}/{repo}/commits', write: false },
  { route: 'getCommit', method: 'GET', template: '/repos/{owner}/{repo}/commits/{ref}', write: false },
  {
    route: 'listPullFiles',
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}/files',
    write: false,
  },
  {
    route: 'requestReviewers',
    method: 'POST',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
    write: true,
  },
  { route: 'listPulls', method: 'GET', template: '/repos/{owner}/{repo}/pulls', write: false },
  { route: 'getPull', method: 'GET', template: '/repos/{owner}/{repo}/pulls/{pull_number}', write: false },
  {
    route: 'updatePull',
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}',
    write: true,
  },
  {
    route: 'listPullCommits',
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}/commits',
    write: false,
  },
  {
    route: 'createIssueCommentReaction',
    method: 'POST',
    template: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    write: true,
  },
  {
    route: 'createReviewCommentReaction',
    method: 'POST',
    template: '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions',
    write: true,
  },
  {
    route: 'getCollaboratorPermission',
    method: 'GET',
    template: '/repos/{owner}/{repo}/collaborators/{username}/permission',
    write: false,
  },
  { route: 'createStatus', method: 'POST', template: '/repos/{owner}/{repo}/statuses/{sha}', write: true },
  {
    route: 'listStatuses',
    method: 'GET',
    template: '/repos/{owner}/{repo}/commits/{ref}/statuses',
    write: false,
  },
  {
    route: 'createWorkflowDispatch',
    method: 'POST',
    template: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    write: true,
  },
  {
    route: 'createRef',
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/refs',
    write: true,
    contents: true,
  },
  {
    route: 'listMatchingRefs',
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/matching-refs/{ref}',
    write: false,
    rest: true,
  },
  { route: 'listDeployments', method: 'GET', template: '/repos/{owner}/{repo}/deployments', write: false },
  {
    route: 'listDeploymentStatuses',
    method: 'GET',
    template: '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
    write: false,
  },
  {
    route: 'deleteRef',
    method: 'DELETE',
    template: '/repos/{owner}/{repo}/git/refs/{ref}',
    write: true,
    contents: true,
    rest: true,
  },
];

/** The reactions GitHub offers. */
const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'];
/** The states of a commit status. */
const STATUS_STATES = ['error', 'failure', 'pending', 'success'] as const;
/** The longest description a commit status may have, in characters. */
const STATUS_DESCRIPTION_MAX = 140;
/** GraphQL's `PullRequestMergeMethod`. */
const MERGE_METHODS = ['MERGE', 'SQUASH', 'REBASE'] as const;
export type AutoMergeMethod = (typeof MERGE_METHODS)[number];
/** The one mutation the action sends, as it sends it (compared with `graphqlShape`). */
const ENABLE_AUTO_MERGE =
  'mutation($pullRequestId: ID!, $mergeMethod: PullRequestMergeMethod!) { enablePullRequestAutoMerge(input: { pullRequestId: $pullRequestId, mergeMethod: $mergeMethod }) { pullRequest { number autoMergeRequest { mergeMethod } } } }';
const VIEWER = 'query { viewer { login } }';
/**
 * GitHub's GraphQL schema as far as the emulator serves it, cut from the published one
 * (scripts/vendor-github-graphql.mjs): every document the emulator is sent is validated against it.
 */
const GRAPHQL_SCHEMA = buildSchema(
  readFileSync(new URL('./openapi/github/graphql.graphql', import.meta.url), 'utf8'),
);

/** A GraphQL document as GitHub's schema takes it, or the errors GitHub would answer it with. */
function checkedDocument(query: unknown): DocumentNode | string[] {
  if (typeof query !== 'string') return ['A query attribute must be specified and must be a string.'];
  try {
    const document = parseGraphQL(query);
    const errors = validate(GRAPHQL_SCHEMA, document);
    return errors.length > 0 ? errors.map((e) => e.message) : document;
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

export interface GitHubEmulatorOptions {
  /** `''`: the API at the root, as api.github.com and GHE.com; `/api/v3`: GitHub Enterprise Server. */
  prefix?: '' | '/api/v3';
  /** The description requests and replies are checked against (GHES's for `/api/v3` by default). */
  spec?: GitHubSpec;
  host?: string;
  /** The host name its URLs carry, when clients reach it by a name (through a proxy) rather than `host`. */
  hostname?: string;
  tls?: { key: string | Buffer; cert: string | Buffer };
  /**
   * The time GitHub dates what it writes (comments, statuses, deployments), in ms: a test's own
   * clock, so that what a run reads back as "when GitHub wrote it" is on that clock. Real time
   * unless given.
   */
  now?: () => number;
}

export interface TokenGrant {
  login: string;
  type?: 'User' | 'Bot';
  /** Repositories (`owner/repo`) the token can see; `*` for all. */
  read?: string[] | '*';
  /**
   * Repositories it may write to (comments, reactions, labels, review requests, commit statuses,
   * auto-merge, workflow dispatches).
   */
  write?: string[];
  /**
   * Of those, the repositories whose contents (git refs) it may write too, as a workflow's token
   * with `contents: write` may: none unless told, as the recipes' `contents: read` gives.
   */
  contents?: string[];
}

export interface StoredComment {
  id: number;
  body: string;
  login: string;
  createdAt: string;
  updatedAt: string;
  /** The contents of the reactions to it (`+1`, `eyes`, …), oldest first. */
  reactions: string[];
}

/** A collaborator's role in a repository, as GitHub names them. */
export type CollaboratorRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';
/** A custom repository role: its own name, and the built-in role it is based on. */
export interface CustomRole {
  name: string;
  base: Exclude<CollaboratorRole, 'admin'>;
}

/** A commit status, as written through `POST …/statuses/{sha}`. */
export interface StoredStatus {
  id: number;
  state: (typeof STATUS_STATES)[number];
  target_url: string | null;
  description: string | null;
  /** `default` when the request named none, as on GitHub. */
  context: string;
  /** The login of the token that wrote it. */
  creator: string;
  createdAt: string;
}

/** A workflow of a repository that `workflow_dispatch` triggers, as a test registers it (`workflow`). */
export interface StoredWorkflow {
  /** Its numeric id, which `…/workflows/{workflow_id}/…` takes as well as its file name. */
  id: number;
  /** Its file name in `.github/workflows/` (`docs.yml`). */
  file: string;
  /** The names of the inputs its `workflow_dispatch` trigger declares. */
  inputs: string[];
}

/** A dispatch GitHub accepted (`POST …/actions/workflows/{workflow_id}/dispatches`). */
export interface WorkflowDispatch {
  /** The workflow's file name, whether the request named it by file name or by id. */
  workflowId: string;
  ref: string;
  /** The inputs as the run gets them: strings (a number or a boolean sent is written as one). */
  inputs: Record<string, string>;
}

/** A git ref as GitHub lists it: its full name (`refs/…`) and the commit it points at. */
export interface StoredRef {
  ref: string;
  sha: string;
}

/** A changed file as GitHub's diff entries describe it (the fields the action reads). */
export type StoredFile = ChangedFile;

export interface StoredCommit {
  sha: string;
  message: string;
  files: StoredFile[];
  /** `GET …/commits/{ref}` leaves `files` out, as GitHub's description allows it to. */
  unlisted?: true;
}

/** A commit of a pull request, as its list names who made it: a login, or none GitHub links. */
export interface PullCommit {
  sha: string;
  /** The account GitHub links to the author's email; `null` when none claims it. */
  author: string | null;
  /** The committer's account; `web-flow` for a commit GitHub made (a web edit, a signed one). */
  committer: string | null;
}

export interface StoredThread {
  number: number;
  pull: boolean;
  /** Who opened it (its `user`); a test may say. */
  opener: string;
  /** A pull request's commits, oldest first (by default its head, by its opener); a test may push more. */
  pullCommits: PullCommit[];
  /** A pull request's changed files. */
  files: StoredFile[];
  mergeCommitSha?: string;
  /** A pull request's head commit; a test may change it (a push). */
  headSha: string;
  /** A pull request's head branch. */
  headRef: string;
  /** The branch a pull request merges into (`main` unless a test says). */
  baseRef: string;
  /** The repository (`owner/repo`) of a pull request's head branch: another one for a fork. */
  headRepo: string;
  /** A test may close it (`'closed'`) or reopen it; a merged pull request is closed whatever this says. */
  state: 'open' | 'closed';
  /** A test may merge a pull request (`merged = true`). */
  merged: boolean;
  /** Issue comments (the conversation). */
  comments: StoredComment[];
  /** A pull request's review comments (on lines of its diff). */
  reviewComments: StoredComment[];
  /** Label names; a test may put one on directly (`get(repo, n).labels.push('bug')`). */
  labels: string[];
  reviewers: string[];
  teams: string[];
  /**
   * A pull request that could be merged now (GraphQL's `mergeStateStatus` CLEAN, REST's
   * `mergeable_state` `clean`): GitHub refuses to enable auto-merge on it. Unset: not clean.
   */
  clean?: boolean;
  /** Auto-merge as enabled through GraphQL's `enablePullRequestAutoMerge`: the method, and by whom. */
  autoMerge?: { method: AutoMergeMethod; by: string };
  /** A draft pull request (a test may open one so, or GraphQL's draft/ready mutations set it). */
  draft?: boolean;
}

export interface GitHubRequest {
  route: GitHubRoute | 'unknown';
  method: string;
  path: string;
  /** The token it carried, if any. */
  token?: string;
  json?: unknown;
  at: number;
}

export interface GitHubFault {
  status: number;
  message?: string;
  headers?: Record<string, string>;
  /** Close the connection without an answer. */
  drop?: boolean;
}

export interface GitHubEmulator {
  /** The API base URL, as GITHUB_API_URL names it. */
  apiUrl: string;
  /** The web host, as GITHUB_SERVER_URL names it. */
  serverUrl: string;
  port: number;
  requests: GitHubRequest[];
  violations: string[];
  grant(token: string, grant: TokenGrant): void;
  /**
   * A pull request (or an issue, `pull: false`) in `repo`; commits it contains (`commits`, the merge
   * commit, the head commit) lead to it. A pull request is open and unmerged unless `state` and
   * `merged` say otherwise; its head is `headSha` (by default the last of `commits`) on branch
   * `headRef` (`topic-{number}`) of `headRepo` (`repo`; another repository for a fork), into `baseRef` (`main`). `opener`
   * opened it (the description's example's user unless told); `pullCommits` are what its list of
   * commits answers (by default its head, authored and committed by the opener).
   */
  thread(
    repo: string,
    options?: {
      pull?: boolean;
      mergeCommitSha?: string;
      commits?: string[];
      files?: StoredFile[];
      headSha?: string;
      headRef?: string;
      baseRef?: string;
      headRepo?: string;
      state?: 'open' | 'closed';
      merged?: boolean;
      clean?: boolean;
      opener?: string;
      pullCommits?: PullCommit[];
    },
  ): StoredThread;
  /** An issue comment on a thread. */
  addComment(repo: string, number: number, comment: { login: string; body: string }): StoredComment;
  /** A review comment on a pull request (kept in its `reviewComments`). */
  addReviewComment(repo: string, number: number, comment: { login: string; body: string }): StoredComment;
  get(repo: string, number: number): StoredThread;
  /** The next request of `route` gets this answer instead. */
  fail(route: GitHubRoute, ...faults: GitHubFault[]): void;
  /** Drops the faults queued for `route` that no request met: it answers as usual again. */
  unfail(route: GitHubRoute): void;
  /** A commit GitHub knows, with the files it changed. */
  commit(repo: string, commit: StoredCommit): void;
  /**
   * A stretch of `repo`'s history: `shas` newest first, each the child of the next (a linear
   * branch). Calls may overlap: a later call's chain wins for a sha's parent, and the last sha keeps
   * any parent it already had. `GET …/commits?sha=X` answers X and its ancestors, newest first; with
   * no `sha`, from the first sha of the latest call. A sha with no history is a commit with no
   * parents; one a commit's message is known by (`commit`) keeps it.
   */
  history(repo: string, shas: string[]): void;
  /**
   * What `GET …/compare/{base}...{head}` answers: the commits (known by `commit`) and the files;
   * `unlisted` leaves `files` out of the reply, as GitHub's description allows it to.
   */
  comparison(
    repo: string,
    basehead: string,
    comparison: { commits: string[]; files: StoredFile[]; behindBy?: number; unlisted?: true },
  ): void;
  /**
   * `login`'s role in `repo`, as `GET …/collaborators/{username}/permission` tells it. A login
   * given no role has none: permission `none`, role_name `none`.
   */
  collaborator(repo: string, login: string, role: CollaboratorRole | CustomRole): void;
  /** The statuses written for commit `sha` of `repo`, newest first. */
  statuses(repo: string, sha: string): StoredStatus[];
  /**
   * A status on commit `sha` of `repo` written by someone else than the action (another app or
   * workflow with `statuses: write`), as `creator`: the newest from now on.
   */
  addStatus(
    repo: string,
    sha: string,
    status: { creator: string; context: string; description: string; state?: StoredStatus['state'] },
  ): StoredStatus;
  /**
   * GitHub knows no commit `sha` in `repo`: listing its statuses answers 404 and creating one 422
   * `No commit found for SHA: {sha}`, as on GitHub. Any other sha is known (with no statuses yet).
   */
  forget(repo: string, sha: string): void;
  /**
   * Whether `repo` allows auto-merge (its "Allow auto-merge" setting; allowed unless told):
   * enabling it on a pull request of a repository that does not is refused.
   */
  allowAutoMerge(repo: string, allowed: boolean): void;
  /**
   * A workflow of `repo` that `workflow_dispatch` triggers, by its file name (`docs.yml`), declaring
   * `inputs` (none unless told); registering a file again replaces it (its id stays). Dispatching a
   * workflow not registered answers 404, and one with an input it does not declare 422.
   */
  workflow(repo: string, file: string, options?: { inputs?: string[] }): StoredWorkflow;
  /** The dispatches of `repo`'s workflows GitHub accepted, oldest first. */
  dispatches(repo: string): WorkflowDispatch[];
  /**
   * A deployment of `repo` at `sha` (`ref`, the branch it was made from), as a docs host makes a
   * pull request's preview: its statuses given oldest first (GitHub lists them newest first).
   */
  deploy(
    repo: string,
    deployment: {
      sha: string;
      ref: string;
      environment?: string;
      creator?: string;
      statuses: {
        state: StoredDeployment['statuses'][number]['state'];
        environmentUrl?: string;
        logUrl?: string;
      }[];
    },
  ): StoredDeployment;
  /** `repo`'s git refs that were created through the API or `addRef`, by name. */
  refs(repo: string): StoredRef[];
  /** A git ref of `repo` someone else made (`refs/…`), pointing at `sha`; one of that name is replaced. */
  addRef(repo: string, ref: string, sha: string): void;
  /** The next request of `route` is answered (as usual) only after `ms`. */
  delay(route: GitHubRoute, ms: number): void;
  /**
   * The next request of `route` is never answered: it hangs until the client gives up on it or
   * the emulator closes. For a client's own time budget, whatever the machine's speed.
   */
  hold(route: GitHubRoute): void;
  /**
   * `then` runs as soon as the `nth` answer of `route` (counted from the emulator's start) is
   * written, before the client can have read it: for a test that must act at that point of a run
   * whatever the machine's speed (a signal sent then is pending before the client goes on).
   */
  afterAnswer(route: GitHubRoute, nth: number, then: () => void): void;
  count(route: GitHubRoute): number;
  close(): Promise<void>;
}

interface Repo {
  id: number;
  threads: Map<number, StoredThread>;
  commits: Map<string, number[]>;
  known: Map<string, StoredCommit>;
  comparisons: Map<string, { commits: string[]; files: StoredFile[]; behindBy?: number; unlisted?: true }>;
  /** Each commit's parent, as `history` tells it. */
  parents: Map<string, string>;
  /** The newest sha of the latest `history`: where listing commits starts with no `sha`. */
  head?: string;
  /** Collaborators' roles, by lower-case login. */
  roles: Map<string, { login: string; role: CollaboratorRole | CustomRole }>;
  /** Commit statuses by sha, newest first. */
  statuses: Map<string, StoredStatus[]>;
  /** Shas GitHub does not know (`forget`). */
  unknown: Set<string>;
  /** Whether it allows auto-merge (`allowAutoMerge`). */
  autoMerge: boolean;
  /** Workflows `workflow_dispatch` triggers, by file name (`workflow`). */
  workflows: Map<string, StoredWorkflow>;
  /** Accepted workflow dispatches, oldest first. */
  dispatches: WorkflowDispatch[];
  /** Git refs by full name (`refs/…`): the commit each points at. */
  refs: Map<string, string>;
  /** Deployments, newest first (`deploy`). */
  deployments: StoredDeployment[];
}

/** A deployment as a test made it (a preview of a pull request's head, as a docs host makes one). */
export interface StoredDeployment {
  id: number;
  sha: string;
  ref: string;
  environment: string;
  creator: string;
  createdAt: string;
  /** Its statuses, newest first. */
  statuses: {
    id: number;
    state: 'error' | 'failure' | 'inactive' | 'in_progress' | 'queued' | 'pending' | 'success';
    environmentUrl: string;
    logUrl: string;
    createdAt: string;
  }[];
}

/** A reaction as GitHub keeps it: who reacted matters (one reaction of a content a user). */
interface StoredReaction {
  id: number;
  login: string;
  content: string;
  createdAt: string;
}

export async function startGitHubEmulator(options: GitHubEmulatorOptions = {}): Promise<GitHubEmulator> {
  const prefix = options.prefix ?? '';
  const stamp = () => new Date(options.now?.() ?? Date.now()).toISOString();
  const contract = gitHubContract(options.spec ?? (prefix === '/api/v3' ? 'ghes-3.19' : 'api.github.com'));
  const graphqlPath = prefix === '/api/v3' ? '/api/graphql' : '/graphql';
  // github.com's description lists a 200 with the run's id and links for a workflow dispatch that
  // asks `return_run_details: true` (its example is the reply's model); GHES 3.19's lists only 204.
  const runDetails = (() => {
    try {
      const template = ROUTES.find((r) => r.route === 'createWorkflowDispatch')?.template ?? '';
      const model = contract.example('workflow-dispatch-response');
      return contract.checkResponse('POST', template, 200, model).length === 0 ? model : undefined;
    } catch {
      return undefined;
    }
  })();
  const requests: GitHubRequest[] = [];
  const violations: string[] = [];
  const grants = new Map<string, Required<TokenGrant> & { id: number }>();
  const repos = new Map<string, Repo>();
  const faults = new Map<GitHubRoute, GitHubFault[]>();
  const delays = new Map<GitHubRoute, number[]>();
  const holds = new Map<GitHubRoute, number>();
  const answered = new Map<GitHubRoute, number>();
  const afterAnswers: { route: GitHubRoute; nth: number; then: () => void }[] = [];
  const reactions = new WeakMap<StoredComment, StoredReaction[]>();
  // When a pull request was first seen closed (or merged): its closed_at and merged_at.
  const closedAt = new WeakMap<StoredThread, string>();
  const closing = new AbortController();
  let nextId = 1000;
  let serverUrl = '';

  const repoOf = (name: string): Repo => {
    let repo = repos.get(name.toLowerCase());
    if (!repo) {
      repo = {
        id: nextId++,
        threads: new Map(),
        commits: new Map(),
        known: new Map(),
        comparisons: new Map(),
        parents: new Map(),
        roles: new Map(),
        statuses: new Map(),
        unknown: new Set(),
        autoMerge: true,
        workflows: new Map(),
        dispatches: [],
        refs: new Map(),
        deployments: [],
      };
      repos.set(name.toLowerCase(), repo);
    }
    return repo;
  };

  // The description's examples are github.com's: their links are moved onto this emulator, as a
  // reply of this server would carry them (its API under `prefix`, its pages at the root).
  const example = (name: string): Record<string, unknown> => rebase(contract.example(name));
  const rebase = <T>(value: T): T => {
    if (typeof value === 'string') {
      return value
        .replace(/^https:\/\/api\.github\.com(?=\/|$)/, `${serverUrl}${prefix}`)
        .replace(/^https:\/\/(?:svn\.)?github\.com(?=\/|$)/, serverUrl) as T;
    }
    if (Array.isArray(value)) return value.map(rebase) as T;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebase(v)])) as T;
    }
    return value;
  };

  // Users GitHub has never been told of (a pull request's author, a collaborator) get ids of their own.
  const userIds = new Map<string, number>();
  // A user as GitHub sends one (`simple-user`), its links on this server. A bot's login is
  // `name[bot]`: its page is its app's (`/apps/name`), and its API links escape the brackets, which
  // a URI's path may not hold.
  const user = (login: string) => {
    const known = [...grants.values()].find((g) => g.login === login);
    let id = known?.id ?? userIds.get(login);
    if (id === undefined) userIds.set(login, (id = nextId++));
    const app = /^(.+)\[bot\]$/.exec(login)?.[1];
    const api = `${serverUrl}${prefix}/users/${encodeURIComponent(login)}`;
    return {
      ...example('simple-user'),
      login,
      id,
      node_id: `U_${id}`,
      type: known?.type ?? (app ? 'Bot' : 'User'),
      avatar_url: `${serverUrl}/avatars/u/${id}?v=4`,
      gravatar_id: '',
      html_url: app
        ? `${serverUrl}/apps/${encodeURIComponent(app)}`
        : `${serverUrl}/${encodeURIComponent(login)}`,
      url: api,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
    };
  };

  const commentJson = (repoName: string, thread: StoredThread, c: StoredComment) => ({
    ...example('issue-comment'),
    id: c.id,
    node_id: `IC_${c.id}`,
    body: c.body,
    user: user(c.login),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `${serverUrl}/${repoName}/${thread.pull ? 'pull' : 'issues'}/${thread.number}#issuecomment-${c.id}`,
    issue_url: `${serverUrl}${prefix}/repos/${repoName}/issues/${thread.number}`,
    url: `${serverUrl}${prefix}/repos/${repoName}/issues/comments/${c.id}`,
    author_association: 'MEMBER',
    performed_via_github_app: null,
  });

  // A repository as a pull request's head and base carry it (the `repository` schema).
  const repositoryJson = (template: Record<string, unknown>, fullName: string, fork: boolean) => {
    const [owner = '', name = ''] = fullName.split('/');
    const id = repos.get(fullName.toLowerCase())?.id ?? 0;
    return {
      ...template,
      id,
      node_id: `R_${id}`,
      name,
      full_name: fullName,
      owner: user(owner),
      fork,
      html_url: `${serverUrl}/${fullName}`,
      url: `${serverUrl}${prefix}/repos/${fullName}`,
    };
  };

  // A pull request as lists carry it (`pull-request-simple`), or what the full one builds on.
  const pullJson = (
    repoName: string,
    thread: StoredThread,
    pr: Record<string, unknown> = example('pull-request-simple'),
  ) => {
    const head = pr.head as Record<string, unknown>;
    const base = pr.base as Record<string, unknown>;
    const closed = thread.merged || thread.state === 'closed';
    if (!closed) closedAt.delete(thread);
    else if (!closedAt.has(thread)) closedAt.set(thread, stamp());
    const at = closedAt.get(thread) ?? null;
    const [headOwner = ''] = thread.headRepo.split('/');
    const [owner = ''] = repoName.split('/');
    const api = `${serverUrl}${prefix}/repos/${repoName}`;
    const { autoMerge } = thread;
    return {
      ...pr,
      number: thread.number,
      id: thread.number + 5000,
      // What GraphQL's `enablePullRequestAutoMerge` takes as `pullRequestId` (`nodeOf` reads it).
      node_id: pullNodeId(repos.get(repoName.toLowerCase())?.id ?? 0, thread.number),
      html_url: `${serverUrl}/${repoName}/pull/${thread.number}`,
      url: `${api}/pulls/${thread.number}`,
      diff_url: `${serverUrl}/${repoName}/pull/${thread.number}.diff`,
      patch_url: `${serverUrl}/${repoName}/pull/${thread.number}.patch`,
      issue_url: `${api}/issues/${thread.number}`,
      commits_url: `${api}/pulls/${thread.number}/commits`,
      review_comments_url: `${api}/pulls/${thread.number}/comments`,
      review_comment_url: `${api}/pulls/comments{/number}`,
      comments_url: `${api}/issues/${thread.number}/comments`,
      statuses_url: `${api}/statuses/${thread.headSha}`,
      user: user(thread.opener),
      state: closed ? 'closed' : 'open',
      closed_at: at,
      merged_at: thread.merged ? at : null,
      merge_commit_sha: thread.mergeCommitSha ?? null,
      auto_merge: autoMerge
        ? {
            enabled_by: user(autoMerge.by),
            merge_method: autoMerge.method.toLowerCase(),
            commit_title:
              autoMerge.method === 'MERGE'
                ? `Merge pull request #${thread.number} from ${headOwner}/${thread.headRef}`
                : autoMerge.method === 'SQUASH'
                  ? `${String(pr.title)} (#${thread.number})`
                  : '',
            commit_message: '',
          }
        : null,
      requested_reviewers: thread.reviewers.map(user),
      // The published example's teams lack a field its own schema requires.
      requested_teams: [],
      labels: thread.labels.map(labelJson),
      head: {
        ...head,
        label: `${headOwner}:${thread.headRef}`,
        ref: thread.headRef,
        sha: thread.headSha,
        user: user(headOwner),
        repo: repositoryJson(
          head.repo as Record<string, unknown>,
          thread.headRepo,
          thread.headRepo.toLowerCase() !== repoName.toLowerCase(),
        ),
      },
      base: {
        ...base,
        ref: thread.baseRef,
        label: `${owner}:${thread.baseRef}`,
        user: user(owner),
        repo: repositoryJson(base.repo as Record<string, unknown>, repoName, false),
      },
    };
  };

  // An issue (or a pull request) as the repository's list of issues carries it (`issue`).
  const issueJson = (repoName: string, thread: StoredThread) => {
    const closed = thread.merged || thread.state === 'closed';
    const api = `${serverUrl}${prefix}/repos/${repoName}`;
    const issue = example('issue');
    // The example is a pull request's: an issue's has no such field.
    delete issue.pull_request;
    return {
      ...issue,
      id: thread.number + 9000,
      node_id: `I_${thread.number}`,
      number: thread.number,
      url: `${api}/issues/${thread.number}`,
      repository_url: api,
      labels_url: `${api}/issues/${thread.number}/labels{/name}`,
      comments_url: `${api}/issues/${thread.number}/comments`,
      events_url: `${api}/issues/${thread.number}/events`,
      html_url: `${serverUrl}/${repoName}/${thread.pull ? 'pull' : 'issues'}/${thread.number}`,
      user: user(thread.opener),
      state: closed ? 'closed' : 'open',
      labels: thread.labels.map(labelJson),
      comments: thread.comments.length,
      ...(thread.pull
        ? {
            pull_request: {
              url: `${api}/pulls/${thread.number}`,
              html_url: `${serverUrl}/${repoName}/pull/${thread.number}`,
              diff_url: `${serverUrl}/${repoName}/pull/${thread.number}.diff`,
              patch_url: `${serverUrl}/${repoName}/pull/${thread.number}.patch`,
            },
          }
        : {}),
    };
  };

  // The full pull request, as `GET …/pulls/{pull_number}` answers it.
  const pullRequestJson = (repoName: string, thread: StoredThread) => {
    const pr = example('pull-request');
    const json = pullJson(repoName, thread, pr);
    return {
      ...json,
      merged: thread.merged,
      draft: thread.draft === true,
      merged_by: thread.merged ? pr.merged_by : null,
      mergeable: json.state === 'closed' ? null : pr.mergeable,
      mergeable_state: json.state === 'closed' ? 'unknown' : thread.clean ? 'clean' : 'blocked',
      labels: thread.labels.map(labelJson),
      comments: thread.comments.length,
      review_comments: thread.reviewComments.length,
    };
  };

  const reactionJson = (r: StoredReaction) => ({
    ...example('reaction'),
    id: r.id,
    node_id: `REA_${r.id}`,
    user: user(r.login),
    content: r.content,
    created_at: r.createdAt,
  });

  const statusJson = (repoName: string, sha: string, s: StoredStatus) => ({
    ...example('status'),
    url: `${serverUrl}${prefix}/repos/${repoName}/statuses/${encodeURIComponent(sha)}`,
    id: s.id,
    node_id: `SC_${s.id}`,
    state: s.state,
    description: s.description,
    target_url: s.target_url,
    context: s.context,
    created_at: s.createdAt,
    updated_at: s.createdAt,
    creator: user(s.creator),
  });

  const deploymentUrl = (repoName: string, id: number) =>
    `${serverUrl}${prefix}/repos/${repoName}/deployments/${id}`;
  const deploymentJson = (repoName: string, d: StoredDeployment) => ({
    ...example('deployment'),
    url: deploymentUrl(repoName, d.id),
    id: d.id,
    node_id: `DE_${d.id}`,
    sha: d.sha,
    ref: d.ref,
    environment: d.environment,
    original_environment: d.environment,
    creator: user(d.creator),
    created_at: d.createdAt,
    updated_at: d.createdAt,
    statuses_url: `${deploymentUrl(repoName, d.id)}/statuses`,
    repository_url: `${serverUrl}${prefix}/repos/${repoName}`,
  });
  const deploymentStatusJson = (
    repoName: string,
    d: StoredDeployment,
    st: StoredDeployment['statuses'][number],
  ) => ({
    ...example('deployment-status'),
    url: `${deploymentUrl(repoName, d.id)}/statuses/${st.id}`,
    id: st.id,
    node_id: `DES_${st.id}`,
    state: st.state,
    creator: user(d.creator),
    environment: d.environment,
    // The description types these `uri` (GitHub sends "" for one not given): one not given is left out.
    ...(st.environmentUrl ? { environment_url: st.environmentUrl } : { environment_url: undefined }),
    log_url: st.logUrl,
    target_url: st.logUrl,
    created_at: st.createdAt,
    updated_at: st.createdAt,
    deployment_url: deploymentUrl(repoName, d.id),
    repository_url: `${serverUrl}${prefix}/repos/${repoName}`,
  });

  // `permission` is the legacy base role GitHub folds the others into: maintain is write, triage
  // read, and a custom role its base's; `role_name` is the role's own name, a custom one's too.
  const permissionJson = (login: string, given: CollaboratorRole | CustomRole | 'none') => {
    const template = example('repository-collaborator-permission-response-if-user-has-admin-permissions');
    const role = typeof given === 'string' ? given : given.base;
    const name = typeof given === 'string' ? given : given.name;
    const rank = ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(role);
    return {
      ...template,
      permission: role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role,
      role_name: name,
      user: {
        ...user(login),
        permissions: {
          pull: rank >= 1,
          triage: rank >= 2,
          push: rank >= 3,
          maintain: rank >= 4,
          admin: rank >= 5,
        },
        // The published example's user lacks a field its own schema (github.com's) requires.
        role_name: name,
      },
    };
  };

  // A page of a list, with the `link` header GitHub sends when there are more.
  const paged = <T>(
    items: T[],
    query: URLSearchParams,
    path: string,
  ): { slice: T[]; headers: Record<string, string> } => {
    // GitHub answers at most 100 a page, however many are asked for.
    const perPage = Math.min(100, Number(query.get('per_page') ?? 30));
    const page = Number(query.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    // The links keep the request's other parameters (`sha` of a list of commits), before the paging.
    const kept = [...query].filter(([name]) => name !== 'per_page' && name !== 'page');
    const link = (p: number, rel: string) =>
      `<${serverUrl}${prefix}${path}?${new URLSearchParams([
        ...kept,
        ['per_page', String(perPage)],
        ['page', String(p)],
      ]).toString()}>; rel="${rel}"`;
    const links = [page < last && link(page + 1, 'next'), page < last && link(last, 'last')].filter(Boolean);
    return {
      slice: items.slice((page - 1) * perPage, page * perPage),
      headers: links.length ? { link: links.join(', ') } : {},
    };
  };

  const fileJson = (repoName: string, f: StoredFile) => ({
    ...example('diff-entry'),
    sha: '1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    // A file's name may hold anything a path may (spaces, `#`, `?`): each segment is escaped.
    blob_url: `${serverUrl}/${repoName}/blob/main/${segments(f.filename)}`,
    raw_url: `${serverUrl}/${repoName}/raw/main/${segments(f.filename)}`,
    contents_url: `${serverUrl}${prefix}/repos/${repoName}/contents/${segments(f.filename)}`,
    patch: f.patch,
    previous_filename: f.previous_filename,
  });

  // A commit; its parents are what `history` tells, else (`parents` not given) the example's.
  const commitJson = (repoName: string, c: StoredCommit, withFiles: boolean, parents?: string[]) => {
    const template = example('commit');
    const json: Record<string, unknown> = {
      ...template,
      sha: c.sha,
      node_id: `C_${c.sha}`,
      url: `${serverUrl}${prefix}/repos/${repoName}/commits/${c.sha}`,
      html_url: `${serverUrl}/${repoName}/commit/${c.sha}`,
      commit: { ...(template.commit as object), message: c.message },
    };
    const parent = repos.get(repoName.toLowerCase())?.parents.get(c.sha);
    const shas = parents ?? (parent === undefined ? undefined : [parent]);
    if (shas) {
      json.parents = shas.map((sha) => ({
        sha,
        url: `${serverUrl}${prefix}/repos/${repoName}/commits/${sha}`,
        html_url: `${serverUrl}/${repoName}/commit/${sha}`,
      }));
    }
    if (withFiles && !c.unlisted) json.files = c.files.map((f) => fileJson(repoName, f));
    else delete json.files;
    return json;
  };

  // `sha` and its ancestors, newest first, as `history` tells them (a cycle ends the walk).
  const ancestry = (repo: Repo, sha: string): string[] => {
    const seen = new Set<string>();
    for (let at: string | undefined = sha; at !== undefined && !seen.has(at); at = repo.parents.get(at)) {
      seen.add(at);
    }
    return [...seen];
  };

  const labelJson = (name: string, i: number) => ({
    ...example('label'),
    id: 200 + i,
    node_id: `LA_${i}`,
    name,
    url: `${serverUrl}${prefix}/labels/${encodeURIComponent(name)}`,
  });

  const access = (grant: Required<TokenGrant>, repoName: string) => {
    const name = repoName.toLowerCase();
    const canWrite = grant.write.some((r) => r.toLowerCase() === name);
    return {
      canRead: grant.read === '*' || grant.read.some((r) => r.toLowerCase() === name),
      canWrite,
      canWriteContents: canWrite && grant.contents.some((r) => r.toLowerCase() === name),
    };
  };

  // A pull request by the node id its REST replies carry (`pullNodeId`), with its repository's name.
  const nodeOf = (id: string) => {
    const [, repoId, number] = /^PR_(\d+)_(\d+)$/.exec(id) ?? [];
    for (const [name, repo] of repos) {
      if (String(repo.id) !== repoId) continue;
      const thread = repo.threads.get(Number(number));
      return thread?.pull ? { name, repo, thread } : undefined;
    }
    return undefined;
  };

  // GraphQL answers HTTP 200 whatever befalls the operation: failures are its `errors`. The REST
  // description has no GraphQL: these replies are GitHub's as its GraphQL API documents and sends
  // them (the viewer query, and the one mutation with the refusals it answers), not checked here.
  function graphql(route: GitHubGraphQLRoute, grant: Required<TokenGrant>, json: unknown): Reply {
    const { query, variables } = (json !== null && typeof json === 'object' ? json : {}) as {
      query?: unknown;
      variables?: unknown;
    };
    // Checked against GitHub's own schema first: a document it refuses never runs there.
    const checked = checkedDocument(query);
    if (Array.isArray(checked)) {
      violations.push(
        `graphql: refused by the cut of GitHub's schema the emulator serves ${JSON.stringify(query)}: ${checked.join('; ')}`,
      );
      return { status: 200, json: { errors: checked.map((message) => ({ message })) } };
    }
    if (route === 'draftPull' || route === 'readyPull')
      return draftOrReady(route, grant, String(query), variables);
    if (route === 'graphql') {
      if (typeof query !== 'string' || graphqlShape(query) !== graphqlShape(VIEWER)) {
        violations.push(`graphql: unexpected query ${JSON.stringify(query)}`);
        return { status: 200, json: { errors: [{ message: 'unexpected query' }] } };
      }
      return { status: 200, json: { data: { viewer: { login: grant.login } } } };
    }
    // `enableAutoMerge`: the route is only given to the mutation's own text.
    const text = String(query);
    const given = (variables !== null && typeof variables === 'object' ? variables : {}) as Record<
      string,
      unknown
    >;
    const id = given.pullRequestId;
    const method = MERGE_METHODS.find((m) => m === given.mergeMethod);
    // A variable its type refuses: the operation does not run, and no `data` at all.
    const invalid = (name: string, type: string, explanation: string): Reply => {
      violations.push(`graphql enableAutoMerge: $${name} ${explanation}`);
      return {
        status: 200,
        json: {
          errors: [
            {
              extensions: { value: given[name] ?? null, problems: [{ path: [], explanation }] },
              locations: locate(text, `$${name}`),
              message: `Variable $${name} of type ${type} was provided invalid value`,
            },
          ],
        },
      };
    };
    if (typeof id !== 'string') {
      return invalid(
        'pullRequestId',
        'ID!',
        id == null ? 'Expected value to not be null' : `Could not coerce value ${JSON.stringify(id)} to ID`,
      );
    }
    if (!method) {
      return invalid(
        'mergeMethod',
        'PullRequestMergeMethod!',
        given.mergeMethod == null
          ? 'Expected value to not be null'
          : `Expected ${JSON.stringify(given.mergeMethod)} to be one of: ${MERGE_METHODS.join(', ')}`,
      );
    }
    const refuse = (type: string, message: string, more: Record<string, unknown> = {}): Reply => ({
      status: 200,
      json: {
        data: { enablePullRequestAutoMerge: null },
        errors: [
          {
            type,
            path: ['enablePullRequestAutoMerge'],
            ...more,
            locations: locate(text, 'enablePullRequestAutoMerge'),
            message,
          },
        ],
      },
    });
    const node = nodeOf(id);
    // A pull request the token cannot see is no node at all, as on GitHub.
    if (!node || !access(grant, node.name).canRead) {
      return refuse('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);
    }
    if (!access(grant, node.name).canWrite) {
      return refuse('FORBIDDEN', 'Resource not accessible by integration', {
        extensions: { saml_failure: false },
      });
    }
    const { repo, thread } = node;
    if (!repo.autoMerge) {
      return refuse('UNPROCESSABLE', 'Pull request Auto merge is not allowed for this repository');
    }
    if (thread.merged || thread.state === 'closed') {
      return refuse('UNPROCESSABLE', 'Pull request Pull request is closed');
    }
    if (thread.clean) return refuse('UNPROCESSABLE', 'Pull request Pull request is in clean status');
    thread.autoMerge = { method, by: grant.login };
    return {
      status: 200,
      json: {
        data: {
          enablePullRequestAutoMerge: {
            pullRequest: { number: thread.number, autoMergeRequest: { mergeMethod: method } },
          },
        },
      },
    };
  }

  /**
   * `convertPullRequestToDraft` and `markPullRequestReadyForReview`, as GitHub answers them: HTTP
   * 200 always; a node the token cannot see is NOT_FOUND, one it cannot write FORBIDDEN, a closed
   * pull request UNPROCESSABLE.
   */
  function draftOrReady(
    route: 'draftPull' | 'readyPull',
    grant: Required<TokenGrant>,
    text: string,
    variables: unknown,
  ): Reply {
    const field = route === 'draftPull' ? 'convertPullRequestToDraft' : 'markPullRequestReadyForReview';
    const id = (variables !== null && typeof variables === 'object' ? variables : {}) as {
      pullRequestId?: unknown;
    };
    const refuse = (type: string, message: string): Reply => ({
      status: 200,
      json: {
        data: { [field]: null },
        errors: [{ type, path: [field], locations: locate(text, field), message }],
      },
    });
    if (typeof id.pullRequestId !== 'string') {
      violations.push(`graphql ${field}: $pullRequestId is not an ID`);
      return {
        status: 200,
        json: { errors: [{ message: 'Variable $pullRequestId of type ID! was provided invalid value' }] },
      };
    }
    const node = nodeOf(id.pullRequestId);
    if (!node || !access(grant, node.name).canRead)
      return refuse('NOT_FOUND', `Could not resolve to a node with the global id of '${id.pullRequestId}'`);
    if (!access(grant, node.name).canWrite)
      return refuse('FORBIDDEN', 'Resource not accessible by integration');
    const { thread } = node;
    if (thread.merged || thread.state === 'closed') return refuse('UNPROCESSABLE', 'Pull request is closed');
    thread.draft = route === 'draftPull';
    return {
      status: 200,
      json: { data: { [field]: { pullRequest: { number: thread.number, isDraft: thread.draft } } } },
    };
  }

  function answer(route: GitHubRoute | undefined, req: Exchange): Reply {
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? grants.get(token) : undefined;
    // 401 is listed for no operation here, but GitHub answers every request with a token it does
    // not know so: the checker takes it (and the 403, 404 and 422 below) on any operation.
    if (!grant) return error(401, 'Bad credentials');
    if (route === 'graphql' || route === 'enableAutoMerge' || route === 'draftPull' || route === 'readyPull')
      return graphql(route, grant, req.json);
    const spec = ROUTES.find((r) => r.route === route);
    const params = req.params;
    const repoName = `${params.owner}/${params.repo}`;
    const { canRead, canWrite, canWriteContents } = access(grant, repoName);
    const repo = repos.get(repoName.toLowerCase());
    // A repository the token cannot see is 404, not 403, on GitHub (it does not say the repository
    // exists), whether or not the operation lists 404; a read-only token's write is 403 the same way.
    if (!spec || !repo || !canRead) return error(404, 'Not Found');
    if (spec.write && !canWrite) return error(403, 'Resource not accessible by integration');
    if (spec.contents && !canWriteContents) return error(403, 'Resource not accessible by integration');
    const body = (req.json ?? {}) as Record<string, unknown>;
    const now = stamp();

    switch (spec.route) {
      case 'pullsOfCommit': {
        const numbers = repo.commits.get(params.commit_sha ?? '') ?? [];
        return {
          status: 200,
          json: numbers.map((n) => pullJson(repoName, repo.threads.get(n) as StoredThread)),
        };
      }
      case 'listIssues': {
        // Newest first, as GitHub's default order (`created`, `desc`) has them.
        const state = req.query.get('state') ?? 'open';
        const wanted = (req.query.get('labels') ?? '').split(',').filter(Boolean);
        const listed = [...repo.threads.values()]
          .filter((t) => state === 'all' || (state === 'closed') === (t.merged || t.state === 'closed'))
          .filter((t) => wanted.every((w) => t.labels.some((l) => l.toLowerCase() === w.toLowerCase())))
          .sort((a, b) => b.number - a.number);
        const { slice, headers } = paged(listed, req.query, `/repos/${repoName}/issues`);
        return { status: 200, json: slice.map((t) => issueJson(repoName, t)), headers };
      }
      case 'listComments':
      case 'createComment': {
        const thread = repo.threads.get(Number(params.issue_number));
        if (!thread) return error(404, 'Not Found');
        if (spec.route === 'createComment') {
          const c = store(thread.comments, {
            login: grant.login,
            body: typeof body.body === 'string' ? body.body : '',
          });
          return { status: 201, json: commentJson(repoName, thread, c) };
        }
        const { slice, headers } = paged(
          thread.comments,
          req.query,
          `/repos/${repoName}/issues/${thread.number}/comments`,
        );
        return { status: 200, json: slice.map((c) => commentJson(repoName, thread, c)), headers };
      }
      case 'updateComment': {
        // As on GitHub, anyone with write access may edit any comment: that the action edits
        // only its own is the action's rule, which the tests check.
        for (const thread of repo.threads.values()) {
          const c = thread.comments.find((x) => x.id === Number(params.comment_id));
          if (c) {
            c.body = typeof body.body === 'string' ? body.body : '';
            c.updatedAt = now;
            return { status: 200, json: commentJson(repoName, thread, c) };
          }
        }
        // Not listed (only 200 and 422 are): GitHub answers a comment id it does not have so.
        return error(404, 'Not Found');
      }
      case 'addLabels': {
        const thread = repo.threads.get(Number(params.issue_number));
        if (!thread) return error(404, 'Not Found');
        for (const name of (body.labels as string[] | undefined) ?? []) {
          if (!thread.labels.includes(name)) thread.labels.push(name);
        }
        return { status: 200, json: thread.labels.map(labelJson) };
      }
      case 'removeLabel': {
        const thread = repo.threads.get(Number(params.issue_number));
        if (!thread) return error(404, 'Not Found');
        // Label names are case-insensitive on GitHub.
        const at = thread.labels.findIndex((l) => l.toLowerCase() === (params.name ?? '').toLowerCase());
        if (at < 0) return error(404, 'Label does not exist');
        thread.labels.splice(at, 1);
        return { status: 200, json: thread.labels.map(labelJson) };
      }
      case 'compare': {
        const comparison = repo.comparisons.get(params.basehead ?? '');
        if (!comparison) return error(404, 'Not Found');
        const commits = comparison.commits.map((sha) => repo.known.get(sha)).filter((c) => c !== undefined);
        const [base = '', head = ''] = (params.basehead ?? '').split('...');
        const json: Record<string, unknown> = {
          ...example('commit-comparison'),
          url: `${serverUrl}${prefix}/repos/${repoName}/compare/${params.basehead}`,
          html_url: `${serverUrl}/${repoName}/compare/${base}...${head}`,
          status: comparison.behindBy ? (commits.length > 0 ? 'diverged' : 'behind') : 'ahead',
          ahead_by: commits.length,
          behind_by: comparison.behindBy ?? 0,
          total_commits: commits.length,
          commits: commits.map((c) => commitJson(repoName, c, false)),
          files: comparison.files.map((f) => fileJson(repoName, f)),
        };
        if (comparison.unlisted) delete json.files;
        return { status: 200, json };
      }
      case 'listCommits': {
        // No `sha` (or an empty one), or the branch's name: the default branch (`main`, the
        // emulator's one branch), here the newest head `history` was told.
        const asked = req.query.get('sha');
        const sha = !asked || asked === 'main' ? repo.head : asked;
        if (!sha) return { status: 200, json: [] };
        if (repo.unknown.has(sha)) return error(404, `No commit found for SHA: ${sha}`);
        const { slice, headers } = paged(ancestry(repo, sha), req.query, `/repos/${repoName}/commits`);
        const message = String((example('commit').commit as { message: unknown }).message);
        const json = slice.map((at) => {
          const parent = repo.parents.get(at);
          const commit = repo.known.get(at) ?? { sha: at, message, files: [] };
          return commitJson(repoName, commit, false, parent === undefined ? [] : [parent]);
        });
        return { status: 200, json, headers };
      }
      case 'getCommit': {
        const commit = repo.known.get(params.ref ?? '');
        if (!commit) return error(404, 'Not Found');
        return { status: 200, json: commitJson(repoName, commit, true) };
      }
      case 'listPullFiles': {
        const thread = repo.threads.get(Number(params.pull_number));
        // Not listed for this operation: GitHub's answer for a number that is no pull request.
        if (!thread?.pull) return error(404, 'Not Found');
        const { slice, headers } = paged(
          thread.files,
          req.query,
          `/repos/${repoName}/pulls/${thread.number}/files`,
        );
        return { status: 200, json: slice.map((f) => fileJson(repoName, f)), headers };
      }
      case 'requestReviewers': {
        const thread = repo.threads.get(Number(params.pull_number));
        // Not listed (201, 403 and 422 are): GitHub's answer for a number that is no pull request.
        if (!thread?.pull) return error(404, 'Not Found');
        thread.reviewers.push(...((body.reviewers as string[] | undefined) ?? []));
        thread.teams.push(...((body.team_reviewers as string[] | undefined) ?? []));
        return { status: 201, json: pullJson(repoName, thread) };
      }
      case 'listPulls': {
        // GitHub orders by last update; the emulator has no such clock, and takes the newest
        // pull request as the one touched last (a test's merges come in the order it makes them).
        const state = req.query.get('state') ?? 'open';
        const base = req.query.get('base');
        const listed = [...repo.threads.values()]
          .filter((t) => t.pull && (base === null || t.baseRef === base))
          .filter((t) => state === 'all' || (state === 'closed') === (t.merged || t.state === 'closed'))
          .sort((a, b) => b.number - a.number);
        if (req.query.get('direction') === 'asc') listed.reverse();
        const { slice, headers } = paged(listed, req.query, `/repos/${repoName}/pulls`);
        return { status: 200, json: slice.map((t) => pullJson(repoName, t)), headers };
      }
      case 'getPull': {
        const thread = repo.threads.get(Number(params.pull_number));
        if (!thread?.pull) return error(404, 'Not Found');
        return { status: 200, json: pullRequestJson(repoName, thread) };
      }
      case 'updatePull': {
        const thread = repo.threads.get(Number(params.pull_number));
        // Not listed (200, 403 and 422 are): GitHub's answer for a number that is no pull request.
        if (!thread?.pull) return error(404, 'Not Found');
        // Only the state is served here: a title, a body or a base is not what the action changes.
        for (const field of Object.keys(body).filter((f) => f !== 'state')) {
          violations.push(`updatePull: the emulator does not serve ${field}`);
        }
        if (body.state !== undefined) {
          if (body.state !== 'open' && body.state !== 'closed') {
            return validationFailed({ resource: 'PullRequest', field: 'state', code: 'invalid' });
          }
          // A merged pull request stays merged (and closed), as on GitHub.
          if (body.state === 'open' && thread.merged) {
            return validationFailed({
              resource: 'PullRequest',
              field: 'state',
              code: 'custom',
              message: 'state cannot be changed. The pull request cannot be reopened.',
            });
          }
          thread.state = body.state;
        }
        return { status: 200, json: pullRequestJson(repoName, thread) };
      }
      case 'listPullCommits': {
        const thread = repo.threads.get(Number(params.pull_number));
        // Not listed (200 is): GitHub's answer for a number that is no pull request.
        if (!thread?.pull) return error(404, 'Not Found');
        // GitHub lists at most 250 commits of a pull request.
        const { slice, headers } = paged(
          thread.pullCommits.slice(0, 250),
          req.query,
          `/repos/${repoName}/pulls/${thread.number}/commits`,
        );
        const message = String((example('commit').commit as { message: unknown }).message);
        const json = slice.map((c) => ({
          ...commitJson(repoName, repo.known.get(c.sha) ?? { sha: c.sha, message, files: [] }, false),
          author: c.author === null ? null : user(c.author),
          committer: c.committer === null ? null : user(c.committer),
        }));
        return { status: 200, json, headers };
      }
      case 'createIssueCommentReaction':
      case 'createReviewCommentReaction': {
        const issue = spec.route === 'createIssueCommentReaction';
        const comment = [...repo.threads.values()]
          .flatMap((t) => (issue ? t.comments : t.reviewComments))
          .find((c) => c.id === Number(params.comment_id));
        // Not listed (200, 201 and 422 are): GitHub's answer for a comment id it does not have.
        if (!comment) return error(404, 'Not Found');
        const content = body.content;
        if (typeof content !== 'string' || !REACTIONS.includes(content)) {
          return validationFailed({ resource: 'Reaction', field: 'content', code: 'invalid' });
        }
        // One reaction of a content a user: reacting again answers the one there is, 200.
        const list = reactions.get(comment) ?? [];
        reactions.set(comment, list);
        const existing = list.find((r) => r.login === grant.login && r.content === content);
        if (existing) return { status: 200, json: reactionJson(existing) };
        const reaction = { id: nextId++, login: grant.login, content, createdAt: now };
        list.push(reaction);
        comment.reactions.push(content);
        return { status: 201, json: reactionJson(reaction) };
      }
      case 'getCollaboratorPermission': {
        const login = params.username ?? '';
        const collaborator = repo.roles.get(login.toLowerCase());
        return {
          status: 200,
          json: permissionJson(collaborator?.login ?? login, collaborator?.role ?? 'none'),
        };
      }
      case 'createStatus': {
        const sha = params.sha ?? '';
        // The description lists only 201; GitHub answers a sha it does not know, and a state or a
        // description it refuses, with 422 (the second as its usual `Validation Failed`).
        if (repo.unknown.has(sha)) return error(422, `No commit found for SHA: ${sha}`);
        const state = STATUS_STATES.find((s) => s === body.state);
        if (!state) return validationFailed({ resource: 'Status', field: 'state', code: 'invalid' });
        const description = typeof body.description === 'string' ? body.description : null;
        // GitHub counts characters, not UTF-16 code units.
        if (description !== null && [...description].length > STATUS_DESCRIPTION_MAX) {
          return validationFailed({
            resource: 'Status',
            field: 'description',
            code: 'custom',
            message: `description is too long (maximum is ${STATUS_DESCRIPTION_MAX} characters)`,
          });
        }
        const status: StoredStatus = {
          id: nextId++,
          state,
          target_url: typeof body.target_url === 'string' ? body.target_url : null,
          description,
          context: typeof body.context === 'string' ? body.context : 'default',
          creator: grant.login,
          createdAt: now,
        };
        repo.statuses.set(sha, [status, ...(repo.statuses.get(sha) ?? [])]);
        const json = statusJson(repoName, sha, status);
        return { status: 201, json, headers: { location: json.url } };
      }
      case 'listStatuses': {
        const ref = params.ref ?? '';
        // Not listed (200 and 301 are): GitHub's answer for a ref it does not know.
        if (repo.unknown.has(ref)) return error(404, 'Not Found');
        const { slice, headers } = paged(
          repo.statuses.get(ref) ?? [],
          req.query,
          `/repos/${repoName}/commits/${encodeURIComponent(ref)}/statuses`,
        );
        return { status: 200, json: slice.map((s) => statusJson(repoName, ref, s)), headers };
      }
      case 'createRef': {
        // None of these refusals is listed (201 is, with 409 and 422 of no particular message):
        // they are GitHub's answers, as it words them.
        const ref = typeof body.ref === 'string' ? body.ref : '';
        const sha = typeof body.sha === 'string' ? body.sha : '';
        if (!ref.startsWith('refs/') || ref.split('/').length < 3)
          return error(422, 'Reference name must contain at least three slash-separated components.');
        if (!validRefName(ref)) return error(422, `${ref} is not a valid ref name.`);
        if (!/^[0-9a-f]{40}$/.test(sha) || repo.unknown.has(sha)) return error(422, 'Object does not exist');
        if (repo.refs.has(ref)) return error(422, 'Reference already exists');
        repo.refs.set(ref, sha);
        const json = refJson(repoName, ref, sha);
        return { status: 201, json, headers: { location: json.url } };
      }
      case 'listDeployments': {
        // Filtered as GitHub filters them: by commit, branch and environment, newest first.
        const [sha, ref, environment] = ['sha', 'ref', 'environment'].map(
          (k) => req.query.get(k) ?? undefined,
        );
        const kept = repo.deployments.filter(
          (d) =>
            (sha === undefined || d.sha === sha) &&
            (ref === undefined || d.ref === ref) &&
            (environment === undefined || d.environment === environment),
        );
        const { slice, headers } = paged(kept, req.query, `/repos/${repoName}/deployments`);
        return { status: 200, json: slice.map((d) => deploymentJson(repoName, d)), headers };
      }
      case 'listDeploymentStatuses': {
        const deployment = repo.deployments.find((d) => String(d.id) === params.deployment_id);
        if (!deployment) return error(404, 'Not Found');
        const { slice, headers } = paged(
          deployment.statuses,
          req.query,
          `/repos/${repoName}/deployments/${deployment.id}/statuses`,
        );
        return {
          status: 200,
          json: slice.map((st) => deploymentStatusJson(repoName, deployment, st)),
          headers,
        };
      }
      case 'listMatchingRefs': {
        // Every ref whose full name starts with `refs/{ref}`, in one reply: GitHub has been seen
        // to ignore `per_page` here and send them all (github/docs#3863, go-github#1567).
        const start = `refs/${params.ref ?? ''}`;
        const json = [...repo.refs]
          .filter(([ref]) => ref.startsWith(start))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([ref, sha]) => refJson(repoName, ref, sha));
        return { status: 200, json };
      }
      case 'deleteRef': {
        const ref = `refs/${params.ref ?? ''}`;
        if (!repo.refs.delete(ref)) return error(422, 'Reference does not exist');
        return { status: 204 };
      }
      case 'createWorkflowDispatch': {
        // `workflow_id` is the workflow's id or its file name. None of these refusals is listed
        // (204, and 200 on github.com, are): they are GitHub's answers, in the order it checks.
        const given = params.workflow_id ?? '';
        const workflow = /^\d+$/.test(given)
          ? [...repo.workflows.values()].find((w) => String(w.id) === given)
          : repo.workflows.get(given);
        if (!workflow) return error(404, 'Not Found');
        // The emulator keeps no branches or tags: any ref but an empty one is taken as one.
        const ref = typeof body.ref === 'string' ? body.ref : '';
        if (!ref) return error(422, `No ref found for: ${ref}`);
        const inputs =
          body.inputs !== null && typeof body.inputs === 'object' && !Array.isArray(body.inputs)
            ? (body.inputs as Record<string, unknown>)
            : {};
        const unexpected = Object.keys(inputs).filter((name) => !workflow.inputs.includes(name));
        if (unexpected.length > 0) {
          return error(
            422,
            `Unexpected inputs provided: [${unexpected.map((n) => JSON.stringify(n)).join(', ')}]`,
          );
        }
        repo.dispatches.push({
          workflowId: workflow.file,
          ref,
          inputs: Object.fromEntries(
            Object.entries(inputs).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
          ),
        });
        if (body.return_run_details !== true || !runDetails) return { status: 204 };
        const id = nextId++;
        return {
          status: 200,
          json: {
            ...runDetails,
            workflow_run_id: id,
            run_url: `${serverUrl}${prefix}/repos/${repoName}/actions/runs/${id}`,
            html_url: `${serverUrl}/${repoName}/actions/runs/${id}`,
          },
        };
      }
    }
  }

  // A git ref as GitHub sends one (`git-ref`): its own link keeps the slashes of its name.
  const refJson = (repoName: string, ref: string, sha: string) => {
    const api = `${serverUrl}${prefix}/repos/${repoName}/git`;
    return {
      ref,
      node_id: `REF_${Buffer.from(`${repoName}:${ref}`).toString('base64url')}`,
      url: `${api}/${segments(ref)}`,
      object: { type: 'commit', sha, url: `${api}/commits/${sha}` },
    };
  };

  function store(list: StoredComment[], c: { login: string; body: string }): StoredComment {
    const now = stamp();
    const comment = {
      id: nextId++,
      body: c.body,
      login: c.login,
      createdAt: now,
      updatedAt: now,
      reactions: [],
    };
    list.push(comment);
    return comment;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const json = body ? parse(body) : undefined;
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let route: GitHubRoute | undefined;
    let template: string | undefined;
    let params: Record<string, string> = {};
    if (method === 'POST' && url.pathname === graphqlPath) route = graphqlRoute(json);
    else if (url.pathname.startsWith(`${prefix}/`)) {
      const path = url.pathname.slice(prefix.length);
      for (const r of ROUTES) {
        const matched = match(r.template, path, r.rest);
        if (matched && r.method === method) {
          route = r.route;
          template = r.template;
          params = matched;
          break;
        }
      }
    }
    requests.push({
      route: route ?? 'unknown',
      method,
      path: req.url ?? '/',
      token,
      json,
      at: Date.now(),
    });
    if (!route) violations.push(`unexpected request ${method} ${req.url}`);
    if (template) violations.push(...contract.checkRequest(method, template, url.searchParams, json));

    const held = route ? (holds.get(route) ?? 0) : 0;
    if (route && held > 0) {
      holds.set(route, held - 1);
      // No answer, ever: the request ends when its client gives up or the emulator closes.
      await new Promise<void>((resolve) => {
        if (closing.signal.aborted) return resolve();
        // Whichever comes first; the other's listener goes with it.
        const done = () => {
          closing.signal.removeEventListener('abort', done);
          resolve();
        };
        closing.signal.addEventListener('abort', done, { once: true });
        res.once('close', done);
      });
      res.destroy();
      return;
    }
    const wait = route ? delays.get(route)?.shift() : undefined;
    if (wait) {
      try {
        await sleep(wait, undefined, { signal: closing.signal });
      } catch {
        // Closed while the reply was held back: a pending timer would keep the process alive.
        res.destroy();
        return;
      }
    }
    const fault = route ? faults.get(route)?.shift() : undefined;
    if (fault?.drop) {
      res.destroy();
      return;
    }
    const reply: Reply = fault
      ? {
          ...error(fault.status, fault.message ?? http.STATUS_CODES[fault.status] ?? 'Error'),
          headers: fault.headers,
        }
      : route
        ? answer(route, { headers: req.headers, json, params, query: url.searchParams })
        : error(404, 'Not Found');
    // Scripted faults too: a reply the real API could not send would prove nothing.
    if (template) violations.push(...contract.checkResponse(method, template, reply.status, reply.json));
    // A reply with no body (204) has no content type either.
    const text = reply.json === undefined ? undefined : JSON.stringify(reply.json);
    res.writeHead(reply.status, {
      ...(text === undefined
        ? {}
        : { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }),
      'x-github-api-version-selected': '2022-11-28',
      ...reply.headers,
    });
    res.end(text);
    if (route) {
      const nth = (answered.get(route) ?? 0) + 1;
      answered.set(route, nth);
      for (const hook of afterAnswers.filter((h) => h.route === route && h.nth === nth)) hook.then();
    }
  }

  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      violations.push(`GitHub emulator failed on ${req.method} ${req.url}: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Emulator error' }));
    });
  };
  const server = options.tls ? https.createServer({ ...options.tls }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  serverUrl = `${options.tls ? 'https' : 'http'}://${options.hostname ?? options.host ?? '127.0.0.1'}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    apiUrl: `${serverUrl}${prefix}`,
    get serverUrl() {
      return serverUrl;
    },
    port,
    requests,
    violations,
    grant(token, grant) {
      grants.set(token, { type: 'User', read: [], write: [], contents: [], ...grant, id: nextId++ });
    },
    thread(repoName, threadOptions = {}) {
      const repo = repoOf(repoName);
      const number = repo.threads.size + 1;
      const pull = threadOptions.pull ?? true;
      const headSha =
        threadOptions.headSha ??
        threadOptions.commits?.at(-1) ??
        String((example('pull-request').head as { sha: string }).sha);
      const opener =
        threadOptions.opener ?? String((example('pull-request').user as { login: string }).login);
      const thread: StoredThread = {
        number,
        pull,
        opener,
        pullCommits: threadOptions.pullCommits ?? [{ sha: headSha, author: opener, committer: opener }],
        files: threadOptions.files ?? [],
        mergeCommitSha: threadOptions.mergeCommitSha,
        headSha,
        headRef: threadOptions.headRef ?? `topic-${number}`,
        baseRef: threadOptions.baseRef ?? 'main',
        headRepo: threadOptions.headRepo ?? repoName,
        state: threadOptions.state ?? 'open',
        merged: threadOptions.merged ?? false,
        ...(threadOptions.clean === undefined ? {} : { clean: threadOptions.clean }),
        comments: [],
        reviewComments: [],
        labels: [],
        reviewers: [],
        teams: [],
      };
      repo.threads.set(thread.number, thread);
      const commits = new Set([
        ...(threadOptions.commits ?? []),
        ...(threadOptions.mergeCommitSha ? [threadOptions.mergeCommitSha] : []),
        ...(pull && threadOptions.headSha ? [threadOptions.headSha] : []),
      ]);
      for (const sha of commits) repo.commits.set(sha, [...(repo.commits.get(sha) ?? []), thread.number]);
      return thread;
    },
    commit(repoName, commit) {
      repoOf(repoName).known.set(commit.sha, commit);
    },
    history(repoName, shas) {
      const repo = repoOf(repoName);
      for (const [i, sha] of shas.entries()) {
        const parent = shas[i + 1];
        if (parent !== undefined) repo.parents.set(sha, parent);
      }
      if (shas[0] !== undefined) repo.head = shas[0];
    },
    comparison(repoName, basehead, comparison) {
      repoOf(repoName).comparisons.set(basehead, comparison);
    },
    addComment(repoName, number, comment) {
      const thread = repoOf(repoName).threads.get(number);
      if (!thread) throw new Error(`no thread ${repoName}#${number}`);
      return store(thread.comments, comment);
    },
    addReviewComment(repoName, number, comment) {
      const thread = repoOf(repoName).threads.get(number);
      if (!thread?.pull) throw new Error(`no pull request ${repoName}#${number}`);
      return store(thread.reviewComments, comment);
    },
    collaborator(repoName, login, role) {
      repoOf(repoName).roles.set(login.toLowerCase(), { login, role });
    },
    statuses: (repoName, sha) => [...(repoOf(repoName).statuses.get(sha) ?? [])],
    addStatus(repoName, sha, { creator, context, description, state = 'success' }) {
      const repo = repoOf(repoName);
      const status: StoredStatus = {
        id: nextId++,
        state,
        target_url: null,
        description,
        context,
        creator,
        createdAt: stamp(),
      };
      repo.statuses.set(sha, [status, ...(repo.statuses.get(sha) ?? [])]);
      return status;
    },
    forget(repoName, sha) {
      repoOf(repoName).unknown.add(sha);
    },
    allowAutoMerge(repoName, allowed) {
      repoOf(repoName).autoMerge = allowed;
    },
    workflow(repoName, file, { inputs = [] } = {}) {
      const repo = repoOf(repoName);
      const workflow = { id: repo.workflows.get(file)?.id ?? nextId++, file, inputs: [...inputs] };
      repo.workflows.set(file, workflow);
      return workflow;
    },
    dispatches: (repoName) => [...repoOf(repoName).dispatches],
    deploy(repoName, { sha, ref, environment = 'preview', creator = 'docs-service[bot]', statuses }) {
      const createdAt = stamp();
      const deployment: StoredDeployment = {
        id: nextId++,
        sha,
        ref,
        environment,
        creator,
        createdAt,
        statuses: statuses
          .map((st) => ({
            id: nextId++,
            state: st.state,
            environmentUrl: st.environmentUrl ?? '',
            // A host always links its build log.
            logUrl: st.logUrl ?? `https://docs-host.example/builds/${sha.slice(0, 12)}`,
            createdAt,
          }))
          .reverse(),
      };
      repoOf(repoName).deployments.unshift(deployment);
      return deployment;
    },
    refs: (repoName) =>
      [...repoOf(repoName).refs].map(([ref, sha]) => ({ ref, sha })).sort((a, b) => (a.ref < b.ref ? -1 : 1)),
    addRef(repoName, ref, sha) {
      repoOf(repoName).refs.set(ref, sha);
    },
    get(repoName, number) {
      const thread = repoOf(repoName).threads.get(number);
      if (!thread) throw new Error(`no thread ${repoName}#${number}`);
      return thread;
    },
    fail: (route, ...list) => void faults.set(route, [...(faults.get(route) ?? []), ...list]),
    unfail: (route) => void faults.delete(route),
    delay: (route, ms) => void delays.set(route, [...(delays.get(route) ?? []), ms]),
    hold: (route) => void holds.set(route, (holds.get(route) ?? 0) + 1),
    afterAnswer: (route, nth, then) => void afterAnswers.push({ route, nth, then }),
    count: (route) => requests.filter((r) => r.route === route).length,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

interface Exchange {
  headers: http.IncomingHttpHeaders;
  json: unknown;
  params: Record<string, string>;
  query: URLSearchParams;
}

interface Reply {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

function error(status: number, message: string): Reply {
  return {
    status,
    json: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
  };
}

/** GitHub's 422 `Validation Failed`, with its one error entry. */
function validationFailed(entry: { resource: string; field: string; code: string; message?: string }): Reply {
  return {
    status: 422,
    json: {
      message: 'Validation Failed',
      errors: [entry],
      documentation_url: 'https://docs.github.com/rest',
      status: '422',
    },
  };
}

/** A pull request's node id (GraphQL's global id), as its REST replies carry it. */
function pullNodeId(repoId: number, number: number): string {
  return `PR_${repoId}_${number}`;
}

/** A GraphQL document with what is insignificant in it (whitespace, commas) evened out. */
function graphqlShape(document: string): string {
  return document
    .replace(/[\s,]+/g, ' ')
    .replace(/ ?([!$():=@[\]{}|]) ?/g, '$1')
    .trim();
}

/** Which GraphQL operation a request is: the auto-merge mutation, else (as any other) `graphql`. */
function graphqlRoute(json: unknown): GitHubGraphQLRoute {
  const query = json !== null && typeof json === 'object' ? (json as { query?: unknown }).query : undefined;
  if (typeof query !== 'string') return 'graphql';
  if (graphqlShape(query) === graphqlShape(ENABLE_AUTO_MERGE)) return 'enableAutoMerge';
  const document = checkedDocument(query);
  const operation = Array.isArray(document)
    ? undefined
    : document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const field =
    operation?.operation === OperationTypeNode.MUTATION ? operation.selectionSet.selections[0] : undefined;
  const name = field?.kind === Kind.FIELD ? field.name.value : undefined;
  return name === 'convertPullRequestToDraft'
    ? 'draftPull'
    : name === 'markPullRequestReadyForReview'
      ? 'readyPull'
      : 'graphql';
}

/** Where `word` first is in a GraphQL document, as GraphQL errors' `locations` tell it. */
function locate(document: string, word: string): { line: number; column: number }[] {
  const lines = document.slice(0, Math.max(0, document.indexOf(word))).split('\n');
  return [{ line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 }];
}

function match(template: string, path: string, rest = false): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/\{(\w+)\}/g, (whole: string, name: string, at: number) => {
    names.push(name);
    return rest && at + whole.length === template.length ? '(.+)' : '([^/]+)';
  });
  const found = new RegExp(`^${pattern}$`).exec(path);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
}

/**
 * A full ref name git takes (`git check-ref-format`): no part starting with `.` or ending in
 * `.lock`, no `..`, `@{`, control character, space, `~^:?*[\`, no `//`, and no `.` or `/` at
 * the end.
 */
function validRefName(ref: string): boolean {
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|[./]$/.test(ref)) return false;
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** A path's segments, each escaped as a URI's path segment. */
function segments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
