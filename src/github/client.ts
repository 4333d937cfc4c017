import { getOctokit } from '@actions/github';
import { fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciInit } from 'undici';
import { connect } from '../service/dispatcher.js';
import * as z from 'zod/mini';
import type { Comment, GitHubApi } from './api.js';
import type { ChangedFile, CommitFacts } from './context.js';

export type { Comment, GitHubApi } from './api.js';
export type { RunContext } from '../core/run-context.js';

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

/** A reply's `files`; none when GitHub left them out (its description allows that), never an empty list. */
function toFiles(reply: unknown): ChangedFile[] | undefined {
  return reply === undefined || reply === null ? undefined : z.array(fileReply).parse(reply);
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
          // Optional in GitHub's description: zod/mini's unknown() alone would refuse a reply without it.
          files: z.optional(z.unknown()),
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
      const reply = z.extend(commitReply, { files: z.optional(z.unknown()) }).parse(data);
      return { commit: toCommit(reply), files: toFiles(reply.files), url: reply.html_url };
    },
    async dispatchWorkflow(at, signal) {
      await octokit().rest.actions.createWorkflowDispatch({ ...at, ...bounded(signal) });
    },
    async getPull(at, signal) {
      const { data } = await octokit().rest.pulls.get({ ...at, ...bounded(signal) });
      const pull = z
        .object({
          state: z.string(),
          merged: z.nullish(z.boolean()),
          head: z.object({ sha: z.string() }),
          node_id: z.string(),
          draft: z.optional(z.boolean()),
          user: z.nullish(z.object({ login: z.string() })),
          labels: z.optional(z.array(z.object({ name: z.optional(z.string()) }))),
        })
        .parse(data);
      return {
        state: pull.state,
        merged: pull.merged === true,
        headSha: pull.head.sha,
        nodeId: pull.node_id,
        draft: pull.draft === true,
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
    async setDraft({ pullRequestId, draft }, signal) {
      await octokit().graphql(
        draft
          ? 'mutation($pullRequestId: ID!) { convertPullRequestToDraft(input: { pullRequestId: $pullRequestId }) { pullRequest { number isDraft } } }'
          : 'mutation($pullRequestId: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $pullRequestId }) { pullRequest { number isDraft } } }',
        { pullRequestId, ...bounded(signal) },
      );
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
        created_at: z.optional(z.string()),
        target_url: z.nullish(z.string()),
      });
      for await (const { data } of pages)
        yield z
          .array(status)
          .parse(data)
          .map(({ creator, created_at, target_url, ...s }) => ({
            ...s,
            creator: creator?.login,
            ...(created_at ? { createdAt: created_at } : {}),
            ...(target_url ? { target: target_url } : {}),
          }));
    },
    async createRef(at, signal) {
      await octokit().rest.git.createRef({ ...at, ...bounded(signal) });
    },
    async *matchingRefs({ prefix, ...at }, signal) {
      const pages = octokit().paginate.iterator(withSignal(octokit().rest.git.listMatchingRefs, signal), {
        ...at,
        ref: prefix,
      });
      const ref = z.object({ ref: z.string(), object: z.object({ sha: z.string(), type: z.string() }) });
      for await (const { data } of pages)
        yield z
          .array(ref)
          .parse(data)
          .map((r) => ({ ref: r.ref, sha: r.object.sha, type: r.object.type }));
    },
    async deleteRef(at, signal) {
      await octokit().rest.git.deleteRef({ ...at, ...bounded(signal) });
    },
    async collaboratorAccess(at, signal) {
      const { data } = await octokit().rest.repos.getCollaboratorPermissionLevel({
        ...at,
        ...bounded(signal),
      });
      const reply = z.object({ permission: z.string(), role_name: z.string() }).parse(data);
      return { permission: reply.permission, role: reply.role_name };
    },
    async deployments(at, signal) {
      const { data } = await octokit().rest.repos.listDeployments({ ...at, ...bounded(signal) });
      return z.array(z.object({ id: z.number() })).parse(data);
    },
    async deploymentStatus(at, signal) {
      const { data } = await octokit().rest.repos.listDeploymentStatuses({
        ...at,
        per_page: 1,
        ...bounded(signal),
      });
      const [newest] = z
        .array(z.object({ state: z.string(), environment_url: z.optional(z.string()) }))
        .parse(data);
      if (!newest) return undefined;
      const { state, environment_url: url } = newest;
      return { state, ...(url ? { environmentUrl: url } : {}) };
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
      for await (const { data } of pages) yield z.array(fileReply).parse(data);
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
