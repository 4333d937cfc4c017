import { pullRequestFork, refWords, type Payload as EventPayload } from '../core/event.js';
import type { GitHubApi, RunContext } from './client.js';

/** The pull request or issue a run reports to. */
export interface Thread {
  owner: string;
  repo: string;
  number: number;
  /** A pull request (not an issue): the comment needs `pull-requests: write`. */
  pull: boolean;
  /** A pull request from a fork, where the workflow's token is read-only. */
  fork: boolean;
}

/**
 * Events that run with a read-only token on a fork's pull request; `pull_request_target` and
 * `issue_comment` run in the base repository with its own token.
 */
const FORK_READ_ONLY_EVENTS = new Set(['pull_request', 'pull_request_review', 'pull_request_review_comment']);

/** Events whose payload names the pull request or issue itself. */
const THREAD_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
  'issues',
  'issue_comment',
]);

interface Payload extends EventPayload {
  pull_request?: EventPayload['pull_request'] & { number?: number };
  issue?: { number?: number; pull_request?: unknown };
  after?: string;
  deleted?: boolean;
  ref?: unknown;
}

/** Whether the event can lead to a thread at all; if not, no request is made. */
export function eventHasThread(eventName: string): boolean {
  return THREAD_EVENTS.has(eventName) || eventName === 'push' || eventName === 'workflow_run';
}

/**
 * The pull request a `workflow_run` follows, from `workflow_run.pull_requests`: the first whose
 * base is this repository. GitHub lists pull requests of other repositories there too (a run on a
 * branch that is also the head of a pull request elsewhere), and none for a fork's pull request.
 */
export function workflowRunPull(
  payload: EventPayload,
  repo: { owner: string; repo: string },
): number | undefined {
  const pulls = payload.workflow_run?.pull_requests;
  if (!Array.isArray(pulls)) return undefined;
  const ownId = payload.repository?.id;
  const own = `${repo.owner}/${repo.repo}`.toLowerCase();
  for (const pull of pulls as unknown[]) {
    if (typeof pull !== 'object' || pull === null) continue;
    const { number, base } = pull as { number?: unknown; base?: { repo?: { id?: unknown; url?: unknown } } };
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) continue;
    const baseId = base?.repo?.id;
    const baseUrl = base?.repo?.url;
    const same =
      typeof baseId === 'number' && typeof ownId === 'number'
        ? baseId === ownId
        : typeof baseUrl === 'string' && /\/repos\/([^/]+\/[^/]+)$/.exec(baseUrl)?.[1]?.toLowerCase() === own;
    if (same) return number;
  }
  return undefined;
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
  const payload = run.payload as Payload;
  const { owner, repo } = run.repo;
  if (THREAD_EVENTS.has(run.eventName)) {
    const pr = payload.pull_request;
    const number = pr?.number ?? payload.issue?.number;
    if (typeof number !== 'number')
      return { none: `the ${run.eventName} event names no pull request or issue` };
    return {
      thread: {
        owner,
        repo,
        number,
        pull: Boolean(pr) || Boolean(payload.issue?.pull_request),
        fork: FORK_READ_ONLY_EVENTS.has(run.eventName) && pullRequestFork(payload) !== undefined,
      },
    };
  }
  if (run.eventName === 'workflow_run') {
    const number = workflowRunPull(payload, run.repo);
    if (number === undefined)
      return { none: `the run this workflow_run follows belongs to no pull request of ${owner}/${repo}` };
    // A workflow_run runs in this repository with its own token, whoever opened the pull request.
    return { thread: { owner, repo, number, pull: true, fork: false } };
  }
  if (run.eventName !== 'push') return { none: `a ${run.eventName} event has no pull request or issue` };
  if (payload.deleted) return { none: `the push deleted ${refWords(payload.ref)}` };

  const sha = payload.after ?? run.sha;
  const pulls = await api.pullsOfCommit({ owner, repo, commit_sha: sha }, signal);
  // The pull request this commit merged, else the first one that contains it.
  const pr = pulls.find((p) => p.merge_commit_sha === sha) ?? pulls[0];
  if (!pr) {
    const short = sha.slice(0, 12);
    return {
      none: payload.ref
        ? `no pull request contains ${short}, pushed to ${refWords(payload.ref)}`
        : `no pull request contains the pushed commit ${short}`,
    };
  }
  return { thread: { owner, repo, number: pr.number, pull: true, fork: false } };
}
