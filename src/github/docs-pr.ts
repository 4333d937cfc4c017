import type { PullRequestRef } from '../pull-request.js';
import type { GitHubApi } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { Warn } from '../log.js';

/**
 * Labels and reviewers on the docs pull request: one call each, and each fault one warning.
 * Teams are `org/team-slug` and must belong to the organisation that owns the docs repository.
 */
export async function routeDocsPullRequest(
  api: GitHubApi,
  pr: PullRequestRef,
  asked: { labels: string[]; reviewers: string[] },
  warn: Warn,
  signal: AbortSignal,
): Promise<void> {
  const { owner, repo, number } = pr;
  const where = `${owner}/${repo}#${number}`;
  const fullRepo = `${owner}/${repo}`;
  if (asked.labels.length > 0) {
    try {
      await api.addLabels({ owner, repo, issue_number: number, labels: asked.labels }, signal);
    } catch (error) {
      warn(
        describeGitHubFault(error, {
          what: `add the labels to ${where}`,
          token: 'docsToken',
          permission: 'pull-requests: write (or issues: write)',
          repo: fullRepo,
        }),
      );
    }
  }

  const reviewers = asked.reviewers.filter((r) => !r.includes('/'));
  const teams: string[] = [];
  for (const entry of asked.reviewers.filter((r) => r.includes('/'))) {
    const [org = '', slug = ''] = entry.split('/');
    if (org.toLowerCase() === owner.toLowerCase()) teams.push(slug);
    else
      warn(
        `Could not request the team ${entry} on ${where}: only teams of ${owner} can review its pull requests.`,
      );
  }
  if (reviewers.length + teams.length === 0) return;
  try {
    await api.requestReviewers(
      { owner, repo, pull_number: number, reviewers, team_reviewers: teams },
      signal,
    );
  } catch (error) {
    warn(
      describeGitHubFault(error, {
        what: `request reviewers on ${where}`,
        token: 'docsToken',
        permission: 'pull-requests: write',
        repo: fullRepo,
        refused: `Reviewers must be collaborators on ${fullRepo}, and the pull request's author cannot review it.`,
      }),
    );
  }
}
