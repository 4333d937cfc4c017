import { secretlessFork } from '../core/event-questions.js';
import { type Actor, type FollowedRun, type Payload, type RunEvent } from '../core/event.js';
import { refWords } from '../core/ref-words.js';
import { carriesDocsLabel } from '../core/pull-request.js';
import type { GitHubApi, RunContext } from './client.js';
import { branchOf } from './context.js';

/** The pull request or issue a run reports to. */
export interface Thread {
  owner: string;
  repo: string;
  number: number;
  /** A pull request (not an issue): the comment needs `pull-requests: write`. */
  pull: boolean;
  /** A pull request from a fork, where the workflow's token is read-only. */
  fork: boolean;
  /**
   * On a push: the pull request's head as GitHub reports it, and whether the pushed commit is the
   * pull request's merge (then the head is what it merged). The head is given only for the merge
   * or for the pull request whose own branch was pushed to: another pull request that contains
   * the commit (one stacked on the branch) has a head of its own, which no push to this branch
   * overtakes.
   */
  pushed?: { head?: string; merge: boolean };
  /**
   * How the pull request came to be, as far as GitHub said: `docsLabel` when it carries
   * DOCS_PR_LABEL (a thread's run put it on its docs PR), and who opened it.
   */
  opened?: { docsLabel: boolean; by?: Actor };
}

/** The label and opener of a pull request or issue as GitHub gives them (a payload's, a list's). */
export function openedFacts(item: unknown): Thread['opened'] {
  if (typeof item !== 'object' || item === null) return undefined;
  const { labels, user } = item as { labels?: unknown; user?: unknown };
  const names: unknown[] = Array.isArray(labels)
    ? (labels as unknown[]).map((l) =>
        typeof l === 'object' && l !== null ? (l as { name?: unknown }).name : l,
      )
    : [];
  const docsLabel = carriesDocsLabel(names);
  const account = typeof user === 'object' && user !== null ? (user as Record<string, unknown>) : {};
  const login = typeof account.login === 'string' ? account.login : undefined;
  const type = typeof account.type === 'string' ? account.type : undefined;
  if (!docsLabel && !login) return undefined;
  return { docsLabel, ...(login ? { by: { login, ...(type ? { type } : {}) } } : {}) };
}

/** Whether the event can lead to a thread at all; if not, no request is made. */
export function eventHasThread(event: RunEvent): boolean {
  return namesThread(event) || event.kind === 'push' || event.kind === 'workflow-run';
}

/** Events whose payload names the pull request or issue itself. */
export function namesThread(
  event: RunEvent,
): event is Extract<RunEvent, { kind: 'pull-request' | 'review' | 'comment' | 'issue' }> {
  return (
    event.kind === 'pull-request' ||
    event.kind === 'review' ||
    event.kind === 'comment' ||
    event.kind === 'issue'
  );
}

/**
 * The pull request a `workflow_run` follows, from `workflow_run.pull_requests`: the first whose
 * base is this repository. GitHub lists pull requests of other repositories there too (a run on a
 * branch that is also the head of a pull request elsewhere), and none for a fork's pull request.
 */
function workflowRunPull(
  followed: FollowedRun,
  ownId: number | undefined,
  repo: { owner: string; repo: string },
): number | undefined {
  const own = `${repo.owner}/${repo.repo}`.toLowerCase();
  for (const { number, baseRepoId, baseRepoUrl } of followed.pullRequests) {
    const same =
      baseRepoId !== undefined && ownId !== undefined
        ? baseRepoId === ownId
        : baseRepoUrl !== undefined &&
          /\/repos\/([^/]+\/[^/]+)$/.exec(baseRepoUrl)?.[1]?.toLowerCase() === own;
    if (same) return number;
  }
  return undefined;
}

/** The pull request or issue a payload names itself: a review's or a pull request event's, else a comment's issue. */
function payloadItem(payload: Payload): unknown {
  return payload.pull_request ?? payload.issue;
}

/** Faults of a push's look-up of its pull request, marked where it is asked. */
const pushLookupFaults = new WeakSet<object>();

/**
 * Whether `error` is the fault of a push's look-up of the pull request its commit came from: then
 * neither the push's thread nor whether the push is its merge is known.
 */
export function isPushLookupFault(error: unknown): boolean {
  return error !== null && typeof error === 'object' && pushLookupFaults.has(error);
}

/**
 * The thread of the event, read from its payload; for a push, the pull request the pushed
 * commit came from, asked of GitHub. `undefined` with the reason when there is none.
 */
export async function findThread(
  api: GitHubApi,
  run: RunContext,
  signal: AbortSignal,
): Promise<{ thread?: Thread; none?: string }> {
  const { event } = run;
  const { owner, repo } = run.repo;
  if (namesThread(event)) {
    const pull = 'pull' in event ? event.pull : undefined;
    const issue = 'issue' in event ? event.issue : undefined;
    const number = pull?.number ?? issue?.number;
    if (number === undefined) return { none: `the ${event.name} event names no pull request or issue` };
    const named = payloadItem(run.payload);
    const opened = named ? openedFacts(named) : undefined;
    return {
      thread: {
        owner,
        repo,
        number,
        pull: Boolean(pull) || Boolean(issue?.pull),
        fork: secretlessFork(event) !== undefined,
        ...(opened ? { opened } : {}),
      },
    };
  }
  if (event.kind === 'workflow-run') {
    const number = workflowRunPull(event.run, event.repository?.id, run.repo);
    if (number === undefined)
      return { none: `the run this ${event.name} follows belongs to no pull request of ${owner}/${repo}` };
    // A workflow_run runs in this repository with its own token, whoever opened the pull request.
    return { thread: { owner, repo, number, pull: true, fork: false } };
  }
  if (event.kind !== 'push') return { none: `a ${event.name} event has no pull request or issue` };
  if (event.deleted) return { none: `the push deleted ${refWords(event.ref)}` };

  const sha = event.after ?? run.sha;
  const pulls = await api.pullsOfCommit({ owner, repo, commit_sha: sha }, signal).catch((error: unknown) => {
    if (error !== null && typeof error === 'object') pushLookupFaults.add(error);
    throw error;
  });
  const branch = event.ref?.startsWith('refs/heads/') ? branchOf(event.ref) : undefined;
  const own = (p: (typeof pulls)[number]) => branch !== undefined && p.head?.ref === branch;
  // The pull request this commit merged, else the one whose branch was pushed to, else the first
  // one that contains it.
  const pr = pulls.find((p) => p.merge_commit_sha === sha) ?? pulls.find(own) ?? pulls[0];
  if (!pr) {
    const short = sha.slice(0, 12);
    return {
      none: event.ref
        ? `no pull request contains ${short}, pushed to ${refWords(event.ref)}`
        : `no pull request contains the pushed commit ${short}`,
    };
  }
  const merge = pr.merge_commit_sha === sha;
  const head = merge || own(pr) ? pr.head?.sha : undefined;
  const opened = openedFacts(pr);
  return {
    thread: {
      owner,
      repo,
      number: pr.number,
      pull: true,
      fork: false,
      pushed: { merge, ...(head ? { head } : {}) },
      ...(opened ? { opened } : {}),
    },
  };
}

/**
 * The merge commits of the other pull requests this push landed with its own (a merge queue's
 * group, or merges pushed together), in the push's order: each merged pull request has a thread
 * to tell. Asked only when the pushed commit is a pull request's merge and the push carries other
 * commits; one page of the pull requests closed into the branch, newest first, names them.
 */
export async function mergedAlongside(
  api: GitHubApi,
  run: RunContext,
  own: Thread | undefined,
  signal: AbortSignal,
): Promise<{ sha: string; number: number }[]> {
  const { event } = run;
  if (event.kind !== 'push' || !own?.pushed?.merge || !event.ref?.startsWith('refs/heads/')) return [];
  const after = event.after ?? run.sha;
  const commits = Array.isArray(run.payload.commits) ? (run.payload.commits as unknown[]) : [];
  const others = commits
    .map((c) => (typeof c === 'object' && c !== null ? (c as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === 'string' && /^[0-9a-f]{40}$/.test(id) && id !== after);
  if (others.length === 0) return [];
  const { owner, repo } = run.repo;
  const closed = await api.closedPulls({ owner, repo, base: branchOf(event.ref) }, signal);
  const merges = new Map<string, number>();
  for (const p of closed)
    if (p.merged && p.merge_commit_sha && p.number !== own.number) merges.set(p.merge_commit_sha, p.number);
  return [...new Set(others)].flatMap((sha) => {
    const number = merges.get(sha);
    return number === undefined ? [] : [{ sha, number }];
  });
}
