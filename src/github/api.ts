// The GitHub calls the action makes, as one interface: what each asks and what it hands back,
// checked at the edge (client.ts reads GitHub's replies into these shapes). Tests and the GitHub
// side's modules speak to this; only client.ts knows Octokit.
import type { MergeMethod } from '../core/ports.js';
import type { ChangedFile, CommitFacts } from './context.js';

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
  /**
   * `base...head`: the commits and files (at most 300) between them. `files` is absent when
   * GitHub's reply leaves them out, as its description allows: not known, never "none".
   */
  compare(
    at: { owner: string; repo: string; basehead: string },
    signal: AbortSignal,
  ): Promise<{
    commits: CommitFacts[];
    files?: ChangedFile[] | undefined;
    url: string;
    /** The head lies behind the base (a branch forced back to older commits): files list nothing of that. */
    behind: boolean;
  }>;
  /** A commit and its files; `files` absent as `compare`'s may be. */
  getCommit(
    at: { owner: string; repo: string; ref: string },
    signal: AbortSignal,
  ): Promise<{ commit: CommitFacts; files?: ChangedFile[] | undefined; url: string }>;
  /** A pull request's files, a page (100) at a time, as GitHub's links lead. */
  pullFiles(
    at: { owner: string; repo: string; pull_number: number },
    signal: AbortSignal,
  ): AsyncIterable<ChangedFile[]>;
  /** Starts a `workflow_dispatch` run of workflow `workflow_id` (its file name) on `ref`, with `inputs`. */
  dispatchWorkflow(
    at: { owner: string; repo: string; workflow_id: string; ref: string; inputs: Record<string, string> },
    signal: AbortSignal,
  ): Promise<void>;
  /** A pull request's state, head commit, GraphQL node id, opener (none for a deleted account) and labels. */
  getPull(
    at: { owner: string; repo: string; pull_number: number },
    signal: AbortSignal,
  ): Promise<{
    state: string;
    merged: boolean;
    headSha: string;
    nodeId: string;
    /** A draft (GitHub's REST `draft`). */
    draft: boolean;
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
  /**
   * A pull request made a draft, or marked ready for review (GraphQL `convertPullRequestToDraft`,
   * `markPullRequestReadyForReview`).
   */
  setDraft(at: { pullRequestId: string; draft: boolean }, signal: AbortSignal): Promise<void>;
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
  /** A commit (without `sha`: the default branch's head) and its ancestors, newest first: one page of at most `per_page`. */
  listCommits(
    at: { owner: string; repo: string; sha?: string; per_page: number },
    signal: AbortSignal,
  ): Promise<string[]>;
  /** A commit's statuses, newest first, a page (100) at a time, as GitHub's links lead. */
  statuses(
    at: { owner: string; repo: string; ref: string },
    signal: AbortSignal,
  ): AsyncIterable<
    {
      context: string;
      description: string | null;
      state: string;
      creator?: string;
      createdAt?: string;
      /** Where the status links (its `target_url`). */
      target?: string;
    }[]
  >;
  /**
   * Creates the git ref `ref` (`refs/…`, at least three parts) at commit `sha`. GitHub answers
   * 422 `Reference already exists` when it does, and 403 to a token without `contents: write`.
   */
  createRef(
    at: { owner: string; repo: string; ref: string; sha: string },
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * The git refs whose full names start with `refs/{prefix}`, each with the object it points at,
   * a page at a time as GitHub's links lead (it has been seen to answer all at once, ignoring
   * `per_page`: github/docs#3863).
   */
  matchingRefs(
    at: { owner: string; repo: string; prefix: string },
    signal: AbortSignal,
  ): AsyncIterable<{ ref: string; sha: string; type: string }[]>;
  /** Deletes the git ref `refs/{ref}`; GitHub answers 422 `Reference does not exist` when there is none. */
  deleteRef(at: { owner: string; repo: string; ref: string }, signal: AbortSignal): Promise<void>;
  /**
   * The login's access to the repository: `permission` (the base role: maintain and custom roles
   * based on write read `write`) and `role_name` (the role's own name).
   */
  collaboratorAccess(
    at: { owner: string; repo: string; username: string },
    signal: AbortSignal,
  ): Promise<{ permission: string; role: string }>;
  /** The newest deployments of commit `sha` (one page of `per_page`), newest first: their ids. */
  deployments(
    at: { owner: string; repo: string; sha: string; per_page: number },
    signal: AbortSignal,
  ): Promise<{ id: number }[]>;
  /** A deployment's newest status (`undefined`: none yet): its state, and the URL it deployed to. */
  deploymentStatus(
    at: { owner: string; repo: string; deployment_id: number },
    signal: AbortSignal,
  ): Promise<{ state: string; environmentUrl?: string } | undefined>;
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
