// The GitHub side's entry, loaded with a dynamic import() only when a workflow asks for it
// (comment, labels, reviewers, context): Octokit and its plugins stay out of the plain path's
// start-up. Here the GitHub side meets the runner: its variables, the real API and the clock.
import { systemClock } from '../clock.js';
import type { Log } from '../log.js';
import { gitHubApi, runContext } from './client.js';
import { GitHubReport, type ReportRequest } from './report.js';

export type { Outcome } from './report.js';
export { GitHubReport };

export function startGitHubReport(request: ReportRequest & { userAgent: string }, log: Log): GitHubReport {
  return new GitHubReport(request, {
    run: runContext(),
    api: (token) => gitHubApi(token, request.userAgent),
    log,
    clock: systemClock,
  });
}
