// The GitHub side's entry, loaded with a dynamic import() only when a workflow asks for it
// (comment, status, a thread, a role, context): Octokit and its plugins stay out of the plain
// path's start-up. Here the GitHub side meets the real API and the clock; the run's context comes
// from the core, read once.
import type { Clock } from '../clock.js';
import type { Log } from '../log.js';
import type { RunContext } from '../run-context.js';
import { gitHubApi } from './client.js';
import { GitHubReport, type ReportRequest } from './report.js';

export { GitHubReport };

export function startGitHubReport(
  request: ReportRequest & { userAgent: string },
  run: RunContext,
  log: Log,
  clock: Clock,
  /** github.com's pages and API: github.com's own unless a test names an emulator. */
  gitHubCom?: { serverUrl: string; apiUrl: string },
): GitHubReport {
  return new GitHubReport(request, {
    run,
    api: (token, apiUrl = run.apiUrl) => gitHubApi(token, request.userAgent, apiUrl),
    log,
    clock,
    ...(gitHubCom ? { gitHubCom } : {}),
  });
}
