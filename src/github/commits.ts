import type { GitHubApi, RunContext } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { Warn } from '../log.js';

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
  after?: unknown;
  before?: unknown;
  deleted?: unknown;
}

/** The commits a run is about. */
export interface RunCommits {
  /** The head the job sees this run: a pull request's head, or the pushed commit. */
  head?: string;
  /** Where this run's commit status goes: a pull request's head, else `GITHUB_SHA`; none on an issue. */
  sha?: string;
}

/**
 * Which commits the run is about. A pull request's events name its head (`GITHUB_SHA` is a merge
 * commit there, or the base branch's head for `pull_request_target`); a comment on a pull request
 * names none, so its head is read; a comment on an issue has no commit at all. A comment gives no
 * `head`: the job saw no new commit from it.
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
    return { head, sha: head };
  }
  if (run.eventName === 'push') {
    if (payload.deleted === true) return {};
    const after = sha(payload.after) ?? sha(run.sha);
    return { head: after, sha: after };
  }
  if (run.eventName === 'issue_comment' || run.eventName === 'issues') {
    const number = payload.issue?.number;
    if (!payload.issue?.pull_request || typeof number !== 'number') return {};
    const { owner, repo } = run.repo;
    try {
      const pull = await api.getPull({ owner, repo, pull_number: number }, signal);
      return { sha: sha(pull.headSha) };
    } catch (error) {
      warn(
        describeGitHubFault(error, {
          what: `read the head commit of pull request #${number}`,
          token: 'githubToken',
          permission: 'pull-requests: read',
          repo: `${owner}/${repo}`,
        }),
      );
      return {};
    }
  }
  return { sha: sha(run.sha) };
}

/** The push's `before`, when there was one (not a new branch). */
export function pushedOnto(run: RunContext): string | undefined {
  if (run.eventName !== 'push') return undefined;
  const before = (run.payload as Payload).before;
  return typeof before === 'string' && /^[0-9a-f]{40}$/.test(before) && !/^0+$/.test(before)
    ? before
    : undefined;
}
