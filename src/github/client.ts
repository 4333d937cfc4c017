import { getOctokit } from '@actions/github';
import { fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciInit } from 'undici';
import { connect } from '../service/dispatcher.js';
import * as z from 'zod/mini';
import type { MergeMethod } from '../core/ports.js';
import type { ChangedFile, CommitFacts } from './context.js';

export type { RunContext } from '../core/run-context.js';

export interface Comment {
  id: number;
  body: string;
  login?: string;
  /** The author's account type (`User`, `Bot`, `Organization`). */
  type?: string;
  url: string;
}

/** The few GitHub calls the action makes; each takes the signal that bounds it. */
export interface GitHubApi {
  /** The login the token acts as: who may edit the kept comment. */
  viewerLogin(signal: AbortSignal): Promise<string>;
  pullsOfCommit(
    at: { owner: string; repo: string; commit_sha: string },
    signal: AbortSignal,
  ): Promise<
    {
      number: number;
      merge_commit_sha?: string | null;
      head?: { sha: string; ref?: string };
      user?: { login: string; type?: string } | null;
      labels?: { name?: string }[];
    }[]
  >;
  /**
   * The newest pull requests closed into `base` (a page of 100, most recently updated first):
   * `merged` when GitHub says it was merged (`merge_commit_sha` alone is also set on an open one).
   */
  closedPulls(
    at: { owner: string; repo: string; base: string },
    signal: AbortSignal,
  ): Promise<{ number: number; merge_commit_sha?: string | null; merged: boolean }[]>;
  /** The newest pull requests and issues (open, or `all`) that carry `label` (at most `max`, one page). */
  labelled(
    at: { owner: string; repo: string; label: string; max: number; state?: 'open' | 'all' },
    signal: AbortSignal,
  ): Promise<{ number: number; pull: boolean }[]>;
  /** A thread's comments, oldest first, a page (100) at a time, as GitHub's links lead. */
  comments(
    at: { owner: string; repo: string; issue_number: number },
    signal: AbortSignal,
  ): AsyncIterable<Comment[]>;
  /** One page (100) of a thread's comments, oldest first, and the number of its last page. */
  commentsPage(
    at: { owner: string; repo: string; issue_number: number; page: number },
    signal: AbortSignal,
  ): Promise<{ comments: Comment[]; last: number }>;
  createComment(
    at: { owner: string; repo: string; issue_number: number; body: string },
    signal: AbortSignal,
  ): Promise<Comment>;
  updateComment(
    at: { owner: string; repo: string; comment_id: number; body: string },
    signal: AbortSignal,
  ): Promise<Comment>;
  addLabels(
    at: { owner: string; repo: string; issue_number: number; labels: string[] },
    signal: AbortSignal,
  ): Promise<void>;
  requestReviewers(
    at: { owner: string; repo: string; pull_number: number; reviewers: string[]; team_reviewers: string[] },
    signal: AbortSignal,
  ): Promise<void>;
  /** `base...head`: the commits and files (at most 300) between them. */
  compare(
    at: { owner: string; repo: string; basehead: string },
    signal: AbortSignal,
  ): Promise<{
    commits: CommitFacts[];
    files: ChangedFile[];
    url: string;
    /** The head lies behind the base (a branch forced back to older commits): files list nothing of that. */
    behind: boolean;
  }>;
  getCommit(
    at: { owner: string; repo: string; ref: string },
    signal: AbortSignal,
  ): Promise<{ commit: CommitFacts; files: ChangedFile[]; url: string }>;
  /** A pull request's files, a page (100) at a time, as GitHub's links lead. */
  pullFiles(
    at: { owner: string; repo: string; pull_number: number },
    signal: AbortSignal,
  ): AsyncIterable<ChangedFile[]>;
  /** A pull request's state, head commit, GraphQL node id, opener (none for a deleted account) and labels. */
  getPull(
    at: { owner: string; repo: string; pull_number: number },
    signal: AbortSignal,
  ): Promise<{
    state: string;
    merged: boolean;
    headSha: string;
    nodeId: string;
    opener?: string;
    /** Its labels' names, as they are now (an event's payload has them as they were). */
    labels: string[];
  }>;
  /**
   * A pull request's commits (GitHub lists at most 250), a page (100) at a time: the logins of
   * each one's author and committer, absent when GitHub links no account to the commit's email.
   */
  pullCommits(
    at: { owner: string; repo: string; pull_number: number },
    signal: AbortSignal,
  ): AsyncIterable<{ author?: string; committer?: string }[]>;
  /** Closes a pull request (`PATCH` with `state: closed`). */
  closePull(at: { owner: string; repo: string; pull_number: number }, signal: AbortSignal): Promise<void>;
  /** Takes a label off an issue or pull request (404 when it is not on it). */
  removeLabel(
    at: { owner: string; repo: string; issue_number: number; name: string },
    signal: AbortSignal,
  ): Promise<void>;
  /** GitHub's auto-merge on a pull request (GraphQL `enablePullRequestAutoMerge`). */
  enableAutoMerge(
    at: { pullRequestId: string; mergeMethod: Uppercase<MergeMethod> },
    signal: AbortSignal,
  ): Promise<void>;
  createStatus(
    at: {
      owner: string;
      repo: string;
      sha: string;
      state: 'pending' | 'success' | 'failure' | 'error';
      target_url: string;
      description: string;
      context: string;
    },
    signal: AbortSignal,
  ): Promise<void>;
  /** A commit and its ancestors, newest first: one page of at most `per_page`. */
  listCommits(
    at: { owner: string; repo: string; sha: string; per_page: number },
    signal: AbortSignal,
  ): Promise<string[]>;
  /** A commit's statuses, newest first, a page (100) at a time, as GitHub's links lead. */
  statuses(
    at: { owner: string; repo: string; ref: string },
    signal: AbortSignal,
  ): AsyncIterable<{ context: string; description: string | null; state: string; creator?: string }[]>;
  /**
   * The login's access to the repository: `permission` (the base role: maintain and custom roles
   * based on write read `write`) and `role_name` (the role's own name).
   */
  collaboratorAccess(
    at: { owner: string; repo: string; username: string },
    signal: AbortSignal,
  ): Promise<{ permission: string; role: string }>;
  /** A reaction on an issue comment, or on a pull request review comment (`review`). */
  react(
    at: { owner: string; repo: string; comment_id: number; review: boolean; content: 'eyes' },
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * Ends the connection the client opened (nothing, when it made no call): kept-alive sockets
   * would otherwise outlive the run. A call after it fails.
   */
  close(): Promise<void>;
}

const PAGE_SIZE = 100;

// Replies are checked for the fields the action uses; anything else GitHub sends is ignored.
const commentReply = z.object({
  id: z.number(),
  body: z.nullish(z.string()),
  user: z.nullish(z.object({ login: z.string(), type: z.optional(z.string()) })),
  html_url: z.string(),
});
const pullsReply = z.array(
  z.object({
    number: z.number(),
    merge_commit_sha: z.nullish(z.string()),
    head: z.optional(z.object({ sha: z.string(), ref: z.optional(z.string()) })),
    user: z.nullish(z.object({ login: z.string(), type: z.optional(z.string()) })),
    labels: z.optional(z.array(z.object({ name: z.optional(z.string()) }))),
  }),
);
const closedReply = z.array(
  z.object({ number: z.number(), merge_commit_sha: z.nullish(z.string()), merged_at: z.nullish(z.string()) }),
);
const labelledReply = z.array(z.object({ number: z.number(), pull_request: z.nullish(z.object({})) }));
const viewerReply = z.object({ viewer: z.object({ login: z.string() }) });
const fileReply = z.object({
  filename: z.string(),
  status: z.string(),
  additions: z.number(),
  deletions: z.number(),
  previous_filename: z.optional(z.string()),
  patch: z.optional(z.string()),
});
const commitReply = z.object({
  sha: z.string(),
  commit: z.object({ message: z.string() }),
  html_url: z.string(),
});

function toFiles(reply: unknown): ChangedFile[] {
  return z.array(fileReply).parse(reply ?? []);
}

function toCommit(reply: unknown): CommitFacts {
  const c = commitReply.parse(reply);
  return { sha: c.sha, message: c.commit.message };
}

function toComment(reply: unknown): Comment {
  const c = commentReply.parse(reply);
  return { id: c.id, body: c.body ?? '', login: c.user?.login, type: c.user?.type, url: c.html_url };
}

/**
 * The GitHub API at `baseUrl` (`GITHUB_API_URL`: github.com, GitHub Enterprise Server under
 * `/api/v3`, or GHE.com at the root; or github.com's API for a docs pull request there), through
 * the proxy the runner's variables name for that URL.
 */
export function gitHubApi(token: string, userAgent: string, baseUrl: string): GitHubApi {
  // @actions/github decides its proxy once, when it is loaded, for GITHUB_API_URL, and every
  // client it makes shares that decision: a client for another host would take the run's
  // GitHub's proxy rules, not its own. Each client here gets its own connection, chosen for its
  // own URL by the same rules as the service's (HTTPS_PROXY, NO_PROXY), and the GraphQL URL
  // Octokit derives from it is on the same host. This `request` option replaces @actions/github's
  // wholesale; per-call `request` options are merged deeply, so the signal goes there.
  //
  // Made on the first call: a client is handed round before it is known to be needed (a thread the
  // payload names asks nothing), and a run without githubToken must fail only a call that needs it.
  let made: ReturnType<typeof getOctokit> | undefined;
  let connection: Dispatcher | undefined;
  const octokit = () => {
    if (!made) {
      const { dispatcher } = connect(baseUrl);
      connection = dispatcher;
      const proxied = ((url: string, init: RequestInit) =>
        undiciFetch(url, { ...(init as UndiciInit), dispatcher })) as unknown as typeof fetch;
      made = getOctokit(token, { userAgent, baseUrl, request: { fetch: proxied } });
    }
    return made;
  };
  const bounded = (signal: AbortSignal) => ({ request: { signal } });
  return {
    async viewerLogin(signal) {
      const reply = await octokit().graphql<unknown>('query { viewer { login } }', bounded(signal));
      return viewerReply.parse(reply).viewer.login;
    },
    async pullsOfCommit(at, signal) {
      const { data } = await octokit().rest.repos.listPullRequestsAssociatedWithCommit({
        ...at,
        per_page: PAGE_SIZE,
        ...bounded(signal),
      });
      return pullsReply.parse(data);
    },
    async closedPulls(at, signal) {
      const { data } = await octokit().rest.pulls.list({
        ...at,
        state: 'closed',
        sort: 'updated',
        direction: 'desc',
        per_page: PAGE_SIZE,
        ...bounded(signal),
      });
      return closedReply.parse(data).map(({ number, merge_commit_sha, merged_at }) => ({
        number,
        merge_commit_sha,
        merged: Boolean(merged_at),
      }));
    },
    async labelled({ owner, repo, label, max, state = 'open' }, signal) {
      const { data } = await octokit().rest.issues.listForRepo({
        owner,
        repo,
        labels: label,
        state,
        per_page: max,
        ...bounded(signal),
      });
      return labelledReply.parse(data).map(({ number, pull_request }) => ({
        number,
        pull: pull_request !== undefined && pull_request !== null,
      }));
    },
    async *comments(at, signal) {
      const pages = octokit().paginate.iterator(withSignal(octokit().rest.issues.listComments, signal), {
        ...at,
        per_page: PAGE_SIZE,
      });
      for await (const { data } of pages) yield z.array(z.unknown()).parse(data).map(toComment);
    },
    async commentsPage(at, signal) {
      const { data, headers } = await octokit().rest.issues.listComments({
        ...at,
        per_page: PAGE_SIZE,
        ...bounded(signal),
      });
      // The `last` link is absent on the last page itself (and on the only one).
      const last = /[?&]page=(\d+)[^>]*>;\s*rel="last"/.exec(headers.link ?? '')?.[1];
      return {
        comments: z.array(z.unknown()).parse(data).map(toComment),
        last: last ? Math.max(at.page, Number(last)) : at.page,
      };
    },
    async createComment(at, signal) {
      const { data } = await octokit().rest.issues.createComment({ ...at, ...bounded(signal) });
      return toComment(data);
    },
    async updateComment(at, signal) {
      const { data } = await octokit().rest.issues.updateComment({ ...at, ...bounded(signal) });
      return toComment(data);
    },
    async addLabels(at, signal) {
      await octokit().rest.issues.addLabels({ ...at, ...bounded(signal) });
    },
    async requestReviewers(at, signal) {
      await octokit().rest.pulls.requestReviewers({ ...at, ...bounded(signal) });
    },
    async compare(at, signal) {
      const { data } = await octokit().rest.repos.compareCommitsWithBasehead({ ...at, ...bounded(signal) });
      const reply = z
        .object({
          html_url: z.string(),
          commits: z.array(z.unknown()),
          files: z.unknown(),
          behind_by: z.optional(z.number()),
        })
        .parse(data);
      return {
        commits: reply.commits.map(toCommit),
        files: toFiles(reply.files),
        url: reply.html_url,
        behind: (reply.behind_by ?? 0) > 0,
      };
    },
    async getCommit(at, signal) {
      const { data } = await octokit().rest.repos.getCommit({ ...at, ...bounded(signal) });
      const reply = z.extend(commitReply, { files: z.unknown() }).parse(data);
      return { commit: toCommit(reply), files: toFiles(reply.files), url: reply.html_url };
    },
    async getPull(at, signal) {
      const { data } = await octokit().rest.pulls.get({ ...at, ...bounded(signal) });
      const pull = z
        .object({
          state: z.string(),
          merged: z.nullish(z.boolean()),
          head: z.object({ sha: z.string() }),
          node_id: z.string(),
          user: z.nullish(z.object({ login: z.string() })),
          labels: z.optional(z.array(z.object({ name: z.optional(z.string()) }))),
        })
        .parse(data);
      return {
        state: pull.state,
        merged: pull.merged === true,
        headSha: pull.head.sha,
        nodeId: pull.node_id,
        labels: (pull.labels ?? []).flatMap((l) => (l.name ? [l.name] : [])),
        ...(pull.user ? { opener: pull.user.login } : {}),
      };
    },
    async *pullCommits(at, signal) {
      const pages = octokit().paginate.iterator(withSignal(octokit().rest.pulls.listCommits, signal), {
        ...at,
        per_page: PAGE_SIZE,
      });
      const account = z.nullish(z.object({ login: z.string() }));
      const commit = z.object({ author: account, committer: account });
      for await (const { data } of pages)
        yield z
          .array(commit)
          .parse(data)
          .map((c) => ({
            ...(c.author ? { author: c.author.login } : {}),
            ...(c.committer ? { committer: c.committer.login } : {}),
          }));
    },
    async closePull(at, signal) {
      await octokit().rest.pulls.update({ ...at, state: 'closed', ...bounded(signal) });
    },
    async removeLabel(at, signal) {
      await octokit().rest.issues.removeLabel({ ...at, ...bounded(signal) });
    },
    async enableAutoMerge(at, signal) {
      // GitHub answers 200 with `errors` for a refusal; Octokit's graphql throws them
      // (GraphqlResponseError), with each error's type and message.
      await octokit().graphql(
        'mutation($pullRequestId: ID!, $mergeMethod: PullRequestMergeMethod!) { enablePullRequestAutoMerge(input: { pullRequestId: $pullRequestId, mergeMethod: $mergeMethod }) { pullRequest { number autoMergeRequest { mergeMethod } } } }',
        { ...at, ...bounded(signal) },
      );
    },
    async listCommits(at, signal) {
      const { data } = await octokit().rest.repos.listCommits({ ...at, ...bounded(signal) });
      return z
        .array(z.object({ sha: z.string() }))
        .parse(data)
        .map((c) => c.sha);
    },
    async createStatus(at, signal) {
      await octokit().rest.repos.createCommitStatus({ ...at, ...bounded(signal) });
    },
    async *statuses(at, signal) {
      const pages = octokit().paginate.iterator(
        withSignal(octokit().rest.repos.listCommitStatusesForRef, signal),
        {
          ...at,
          per_page: PAGE_SIZE,
        },
      );
      const status = z.object({
        context: z.string(),
        description: z.nullable(z.string()),
        state: z.string(),
        creator: z.nullish(z.object({ login: z.string() })),
      });
      for await (const { data } of pages)
        yield z
          .array(status)
          .parse(data)
          .map(({ creator, ...s }) => ({ ...s, creator: creator?.login }));
    },
    async collaboratorAccess(at, signal) {
      const { data } = await octokit().rest.repos.getCollaboratorPermissionLevel({
        ...at,
        ...bounded(signal),
      });
      const reply = z.object({ permission: z.string(), role_name: z.string() }).parse(data);
      return { permission: reply.permission, role: reply.role_name };
    },
    async react({ review, ...at }, signal) {
      if (review)
        await octokit().rest.reactions.createForPullRequestReviewComment({ ...at, ...bounded(signal) });
      else await octokit().rest.reactions.createForIssueComment({ ...at, ...bounded(signal) });
    },
    async *pullFiles(at, signal) {
      const pages = octokit().paginate.iterator(withSignal(octokit().rest.pulls.listFiles, signal), {
        ...at,
        per_page: PAGE_SIZE,
      });
      for await (const { data } of pages) yield toFiles(data);
    },
    async close() {
      await connection?.destroy();
    },
  };
}

/**
 * Octokit's paginate calls the route with the method, URL and headers of each page alone, and so
 * drops per-call options such as the signal that bounds the work: the route it is given here adds
 * the signal back to every page's request.
 */
function withSignal<Route>(route: Route, signal: AbortSignal): Route {
  const call = route as unknown as ((options: object) => Promise<unknown>) & { endpoint: unknown };
  const bounded = (options: object) => call({ ...options, request: { signal } });
  return Object.assign(bounded, { endpoint: call.endpoint }) as unknown as Route;
}
