import type { GitHubApi, RunContext } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { Warn } from '../core/log.js';

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
 * request names none, so its head is read (and is the head its job sees: a request's follow-up
 * carries what changed up to it); a comment on an issue has no commit at all.
 */
export async function runCommits(
  api: GitHubApi,
  run: RunContext,
  warn: Warn,
  signal: AbortSignal,
): Promise<RunCommits> {
  const { event } = run;
  const sha = (value: unknown) =>
    typeof value === 'string' && /^[0-9a-f]{40}$/.test(value) ? value : undefined;
  if (
    event.kind === 'pull-request' ||
    event.kind === 'review' ||
    (event.kind === 'comment' && event.review)
  ) {
    const head = sha(event.pull?.headSha);
    return head ? { head, sha: head } : { none: `the ${event.name} event names no head commit` };
  }
  if (event.kind === 'workflow-run') {
    const head = sha(event.run.headSha);
    return head ? { head, sha: head } : { none: `the ${event.name} event names no head commit` };
  }
  if (event.kind === 'push') {
    if (event.deleted) return { none: 'the push deleted its ref' };
    const after = sha(event.after) ?? sha(run.sha);
    return after ? { head: after, sha: after } : { none: 'the push names no commit' };
  }
  if (event.kind === 'comment' || event.kind === 'issue') {
    const number = event.issue?.number;
    if (number === undefined) return { none: `the ${event.name} event names no issue` };
    if (!event.issue?.pull) return { none: `#${number} is an issue, which has no commit` };
    const { owner, repo } = run.repo;
    try {
      const pull = await api.getPull({ owner, repo, pull_number: number }, signal);
      const head = sha(pull.headSha);
      return head ? { head, sha: head } : { none: `GitHub named no head commit for pull request #${number}` };
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
  if (run.event.kind !== 'push') return undefined;
  const { before } = run.event;
  return before !== undefined && /^[0-9a-f]{40}$/.test(before) && !/^0+$/.test(before) ? before : undefined;
}
