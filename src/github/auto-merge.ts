import type { MergeMethod } from '../core/ports.js';
import type { Warn } from '../core/log.js';
import type { PullRequestRef } from '../core/pull-request.js';
import { quote } from '../core/untrusted.js';
import type { GitHubApi } from './client.js';
import { describeGitHubFault } from './errors.js';

/** One of GraphQL's errors, as Octokit's `GraphqlResponseError` carries them. */
interface GraphQLError {
  type?: unknown;
  message?: unknown;
}

/**
 * GitHub's auto-merge on the docs pull request, with `method`: it merges once its required checks
 * and reviews pass. Every refusal is one warning that says which and what would fix it; it never
 * changes the job's result.
 */
export async function enableAutoMerge(
  api: GitHubApi,
  pr: PullRequestRef,
  method: MergeMethod,
  warn: Warn,
  signal: AbortSignal,
  say: (line: string) => void = () => undefined,
): Promise<void> {
  const where = `${pr.owner}/${pr.repo}#${pr.number}`;
  const repo = `${pr.owner}/${pr.repo}`;
  try {
    const pull = await api.getPull({ owner: pr.owner, repo: pr.repo, pull_number: pr.number }, signal);
    await api.enableAutoMerge(
      { pullRequestId: pull.nodeId, mergeMethod: method.toUpperCase() as Uppercase<MergeMethod> },
      signal,
    );
    say(`Enabled auto-merge (${method}) on ${where}.`);
  } catch (error) {
    const refusal = graphQLError(error);
    if (!refusal) {
      warn(
        describeGitHubFault(error, {
          what: `enable auto-merge on ${where}`,
          token: 'docsToken',
          permission: 'contents: write and pull-requests: write',
          repo,
        }),
      );
      return;
    }
    const said = typeof refusal.message === 'string' ? refusal.message : '';
    const start = `Could not enable auto-merge on ${where} (${quote(said, 200)})`;
    if (refusal.type === 'FORBIDDEN') {
      warn(`${start}: docsToken needs contents: write and pull-requests: write on ${repo}.`);
    } else if (/not allowed for this repository/i.test(said)) {
      warn(`${start}: turn on "Allow auto-merge" in ${repo}'s settings (General, Pull Requests).`);
    } else if (/clean status/i.test(said)) {
      warn(
        `${start}: it can be merged now, so GitHub has nothing to wait for; merge it, or require a check or a review in ${repo}.`,
      );
    } else if (/closed/i.test(said)) {
      warn(`${start}: it was merged or closed before the job ended.`);
    } else {
      warn(`${start}.`);
    }
  }
}

/** The first GraphQL error of a refusal (GitHub answers 200 with `errors`); else `undefined`. */
function graphQLError(error: unknown): GraphQLError | undefined {
  const failure = error as { name?: unknown; errors?: unknown } | undefined;
  if (failure?.name !== 'GraphqlResponseError' || !Array.isArray(failure.errors)) return undefined;
  const [first] = failure.errors as GraphQLError[];
  return first;
}
