import type { AgentJob } from '../core/job.js';
import type { ReportRequest } from '../core/ports.js';
import { describeThrown, type Warn } from '../core/log.js';
import { DOCS_PR_LABEL, samePullRequest, type PullRequestRef } from '../core/pull-request.js';
import { printableUrl } from '../core/untrusted.js';
import type { GitHubApi } from './client.js';
import { enableAutoMerge } from './auto-merge.js';
import { nameThreadOnDocs } from './docs-note.js';
import { codeState, followCode } from './draft.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';
import { eventHasThread, namesThread, type Thread } from './target.js';

/**
 * Labels, reviewers and auto-merge on the docs pull request, once the job completed with one, and
 * on a thread the note that names the thread (docs-note.ts). Only on the link the `prLink` output
 * carries, only on a pull request that is not the one this run is about (the service may name
 * any), and, on another GitHub, only with a docsToken given for it. Each way it is not done is one
 * line, with nothing written.
 */
export async function writeOnDocs(
  session: GitHubSession,
  job: AgentJob | undefined,
  failure: string | undefined,
  signal: AbortSignal,
  /** What the run that sent asked for, when not this one (a waiting job's end). */
  request: Pick<ReportRequest, 'labels' | 'reviewers' | 'autoMerge' | 'thread' | 'draft'> = session.request,
  /**
   * The job is the run's own thread's: a docs PR that is the pull request this run is about is
   * refused. A branch's job reported by a report run is no pull request's (that run may be on the
   * docs PR's own event).
   */
  ownThread = true,
): Promise<void> {
  const { run, log, warn } = session;
  const route = request.labels.length + request.reviewers.length > 0;
  const merge = request.autoMerge;
  const draft = request.thread && request.draft === true;
  // A thread's docs PR in the run's own repository is marked, whatever else was asked.
  if (!route && !merge && !request.thread) return;
  if (failure || job?.status !== 'completed') return;
  const what = route
    ? merge
      ? 'Labels, reviewers and auto-merge not set'
      : 'Labels and reviewers not set'
    : merge
      ? 'Auto-merge not enabled'
      : 'Not kept a draft (draft: true)';
  const asked = route || merge !== undefined || draft;
  if (!job.prLink) {
    if (asked) log.info(`${what}: the job changed no files, so it has no docs pull request.`);
    return;
  }
  const reach = session.docsReach(job.prLink);
  if ('none' in reach) {
    if (!asked) return;
    if (reach.why) warn(`${what}: the docs pull request is ${reach.why}; pass a token for it as docsToken.`);
    else {
      const { gitHubCom } = session;
      const servers =
        gitHubCom.serverUrl === run.serverUrl ? run.serverUrl : `${run.serverUrl} or ${gitHubCom.serverUrl}`;
      log.notice(`${what}: ${printableUrl(job.prLink)} is not a pull request on ${servers}.`);
    }
    return;
  }
  const { pr, api, home } = reach;
  const where = `${pr.owner}/${pr.repo}#${pr.number}`;
  const here = home && samePullRequest(pr, { ...run.repo, number: pr.number });
  const mark = request.thread && here;
  // A thread's docs PR names its pull request or issue, wherever the docs PR is: on the event that
  // names it, or where a report or lane run writes its end. A branch's has no number to name.
  const name = request.thread && ownThread && (session.pinnedThread !== undefined || namesThread(run.event));
  if (!asked && !mark && !name) return;
  let own: Thread | undefined;
  if (ownThread && (name || draft || eventHasThread(run.event))) {
    try {
      own = (await session.runThread(signal)).thread;
    } catch (error) {
      warn(
        `${asked ? what : 'Docs pull request not labelled'}: could not tell whether ${where} is the pull request this run is about (${describeThrown(error)}).`,
      );
      return;
    }
    if (own && home && samePullRequest(own, pr)) {
      warn(
        `${asked ? what : 'Docs pull request not labelled'}: the service named ${where}, the ${own.pull ? 'pull request' : 'issue'} this run is about, as its docs pull request; nothing is written on it.`,
      );
      return;
    }
  }
  // In the run's own repository the workflow runs on the docs PR's events too: the label tells
  // those runs that it is a docs PR, which starts no job (docs/design.md §3.9).
  const labels = [...request.labels, ...(mark ? [DOCS_PR_LABEL] : [])];
  if (labels.length + request.reviewers.length > 0)
    await routeDocsPullRequest(api, pr, { labels, reviewers: request.reviewers }, warn, signal, session.say);
  // Kept a draft until the code merges: auto-merge waits for it to be ready.
  const ready = draft ? await draftFollows(session, api, pr, own, signal) : true;
  if (merge && ready) await enableAutoMerge(api, pr, merge, warn, signal, session.say);
  else if (merge)
    log.info(`Auto-merge not enabled yet: ${where} is a draft until its code pull request merges.`);
  if (name && own)
    await nameThreadOnDocs(
      api,
      pr,
      own,
      job.id,
      run.serverUrl,
      {
        say: session.say,
        warn,
        // The token that writes there: the run's own (its identity asked once a run) unless a
        // docsToken was given, whose identity GitHub tells on asking.
        login: (s) => session.docsLogin(api, home, s),
      },
      signal,
    );
}

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
  say: (line: string) => void = () => undefined,
): Promise<void> {
  const { owner, repo, number } = pr;
  const where = `${owner}/${repo}#${number}`;
  const fullRepo = `${owner}/${repo}`;
  if (asked.labels.length > 0) {
    try {
      await api.addLabels({ owner, repo, issue_number: number, labels: asked.labels }, signal);
      say(`Labelled ${where}: ${asked.labels.join(', ')}.`);
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
    say(`Asked for reviews on ${where}: ${[...reviewers, ...teams.map((t) => `${owner}/${t}`)].join(', ')}.`);
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

/**
 * `draft: true`: the docs PR `pr` follows its thread's code pull request (`own`); whether it is
 * ready for review now. A thread with no code pull request (an issue's, a branch's) leaves it as
 * it is, and says so.
 */
async function draftFollows(
  session: GitHubSession,
  api: GitHubApi,
  pr: PullRequestRef,
  own: Thread | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  if (!own?.pull) {
    session.log.info(
      `${pr.owner}/${pr.repo}#${pr.number} is left as it is (draft: true): this thread has no code pull request to wait for.`,
    );
    return true;
  }
  const state = await codeState(session, own, signal);
  return state ? followCode(session, api, pr, { state, number: own.number }, signal) : false;
}

/**
 * `draft: true`, on the code pull request's close that sent nothing: the thread's docs PR
 * (`prLink`) follows it (ready, then `autoMerge`; or closed), never the run's own pull request.
 */
export async function docsFollowCode(
  session: GitHubSession,
  prLink: string,
  signal: AbortSignal,
): Promise<void> {
  const reach = session.docsReach(prLink);
  if ('none' in reach) {
    if (reach.why)
      session.warn(
        `Not kept a draft (draft: true): the docs pull request is ${reach.why}; pass a token for it as docsToken.`,
      );
    return;
  }
  const { pr, api } = reach;
  const { thread: own } = await session.runThread(signal);
  if (!own || samePullRequest(own, pr)) return;
  const ready = await draftFollows(session, api, pr, own, signal);
  const merge = session.request.autoMerge;
  if (ready && merge) await enableAutoMerge(api, pr, merge, session.warn, signal, session.say);
}
