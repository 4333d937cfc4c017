import type { GitHubApi, RunContext } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { Warn } from '../core/log.js';

/** Events whose payload carries the pull request, head commit included. */
const PULL_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
]);

interface Payload {
  pull_request?: { head?: { sha?: unknown } };
  issue?: { number?: unknown; pull_request?: unknown };
  workflow_run?: { head_sha?: unknown } | null;
  after?: unknown;
  before?: unknown;
  deleted?: unknown;
}

/** The commits a run is about. */
export interface RunCommits {
  /** The head the job sees this run: a pull request's head, the pushed commit, or the followed run's head. */
  head?: string;
  /**
   * Where this run's commit status goes: a pull request's head, the head of the run a
   * `workflow_run` follows, else `GITHUB_SHA`; none on an issue.
   */
  sha?: string;
  /** Why there is no `sha`, in words for the notice that no status was set. */
  none?: string;
}

/**
 * Which commits the run is about. A pull request's events name its head (`GITHUB_SHA` is a merge
 * commit there, or the base branch's head for `pull_request_target`); a `workflow_run` names the
 * head of the run it follows (`GITHUB_SHA` is the default branch's head there); a comment on a pull
 * request names none, so its head is read; a comment on an issue has no commit at all. A comment
 * gives no `head`: the job saw no new commit from it.
 */
export async function runCommits(
  api: GitHubApi,
  run: RunContext,
  warn: Warn,
  signal: AbortSignal,
): Promise<RunCommits> {
  const payload = run.payload as Payload;
  const sha = (value: unknown) =>
    typeof value === 'string' && /^[0-9a-f]{40}$/.test(value) ? value : undefined;
  if (PULL_EVENTS.has(run.eventName)) {
    const head = sha(payload.pull_request?.head?.sha);
    return head ? { head, sha: head } : { none: `the ${run.eventName} event names no head commit` };
  }
  if (run.eventName === 'workflow_run') {
    const head = sha(payload.workflow_run?.head_sha);
    return head ? { head, sha: head } : { none: 'the workflow_run event names no head commit' };
  }
  if (run.eventName === 'push') {
    if (payload.deleted === true) return { none: 'the push deleted its ref' };
    const after = sha(payload.after) ?? sha(run.sha);
    return after ? { head: after, sha: after } : { none: 'the push names no commit' };
  }
  if (run.eventName === 'issue_comment' || run.eventName === 'issues') {
    const number = payload.issue?.number;
    if (typeof number !== 'number') return { none: `the ${run.eventName} event names no issue` };
    if (!payload.issue?.pull_request) return { none: `#${number} is an issue, which has no commit` };
    const { owner, repo } = run.repo;
    try {
      const pull = await api.getPull({ owner, repo, pull_number: number }, signal);
      const head = sha(pull.headSha);
      return head ? { sha: head } : { none: `GitHub named no head commit for pull request #${number}` };
    } catch (error) {
      warn(
        describeGitHubFault(error, {
          what: `read the head commit of pull request #${number}`,
          token: 'githubToken',
          permission: 'pull-requests: read',
          repo: `${owner}/${repo}`,
        }),
      );
      return { none: `the head commit of pull request #${number} could not be read` };
    }
  }
  const given = sha(run.sha);
  return given ? { sha: given } : { none: 'the run names no commit (GITHUB_SHA is empty)' };
}

/** The push's `before`, when there was one (not a new branch). */
export function pushedOnto(run: RunContext): string | undefined {
  if (run.eventName !== 'push') return undefined;
  const before = (run.payload as Payload).before;
  return typeof before === 'string' && /^[0-9a-f]{40}$/.test(before) && !/^0+$/.test(before)
    ? before
    : undefined;
}
