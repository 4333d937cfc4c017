// The GitHub side's entry, loaded with a dynamic import() only when a workflow asks for it
// (comment, status, a thread, a role, context): Octokit and its plugins stay out of the plain
// path's start-up. Here the GitHub side meets the real API and the clock: one session for the
// run, and over it one object a step. The run's context comes from the core, read once.
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { ReportRequest } from '../core/ports.js';
import type { GitHubSteps } from '../core/sweep-ports.js';
import type { RunContext } from '../core/run-context.js';
import { gitHubApi } from './client.js';
import { executeWrites } from './first-writes.js';
import { reportWrites } from './last-writes.js';
import { decideReads } from './reads.js';
import { GitHubSession, type SessionDeps } from './session.js';
import { sweepSide } from './sweep-side.js';

/** The three steps' objects over one session made from `deps` (tests give their own API and clock). */
export function gitHubSteps(request: ReportRequest, deps: SessionDeps): GitHubSteps {
  const session = new GitHubSession(request, deps);
  return {
    decide: decideReads(session),
    execute: executeWrites(session),
    report: reportWrites(session),
    sweep: sweepSide(session),
    close: () => session.close(),
  };
}

export function startGitHub(
  request: ReportRequest & { userAgent: string },
  run: RunContext,
  log: Log,
  clock: Clock,
  /** github.com's pages and API: github.com's own unless a test names an emulator. */
  gitHubCom?: { serverUrl: string; apiUrl: string },
): GitHubSteps {
  return gitHubSteps(request, {
    run,
    api: (token, apiUrl = run.apiUrl) => gitHubApi(token, request.userAgent, apiUrl),
    log,
    clock,
    ...(gitHubCom ? { gitHubCom } : {}),
  });
}
