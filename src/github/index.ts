// The GitHub side, loaded with a dynamic import() only when a workflow asks for it (comment,
// labels, reviewers): Octokit and its plugins stay out of the plain path's start-up.
import * as core from '@actions/core';
import type { AgentJob } from '../job.js';
import { describeThrown, printableUrl } from '../log.js';
import { gitHubApi, runContext, type GitHubApi } from './client.js';
import { commentBody, commentMarker, KeptComment } from './comment.js';
import { docsPullRequest, routeDocsPullRequest } from './docs-pr.js';
import { renderContext } from './context.js';
import { describeGitHubFault, isFinalFault } from './errors.js';
import { eventHasContext, gatherContext } from './gather.js';
import { eventHasThread, findThread } from './target.js';

export interface ReportRequest {
  comment: boolean;
  labels: string[];
  reviewers: string[];
  githubToken: string;
  docsToken: string;
  baseUrl: string;
  projectId: string;
  prompt?: string;
  jobId?: string;
  userAgent: string;
}

/** How the step ended, for the comment's last update. */
export interface Outcome {
  jobId: string;
  job?: AgentJob;
  failure?: string;
  timedOut: boolean;
  waitedMs: number;
}

export interface GitHubReport {
  /**
   * What the triggering event changed, as a section to append to the prompt (at most `limit`
   * characters), or `''`: events that change nothing add nothing and make no request.
   */
  contextFor(limit: number, signal: AbortSignal): Promise<string>;
  /** The job exists and is being waited for: post (or, on a re-run, update) the comment. */
  started(jobId: string, job: AgentJob | undefined): void;
  /**
   * The step ends: the comment's last update, then labels and reviewers; the comment's URL.
   * `cancellation` is the step's: once it fires, GitHub gets only a short while more.
   */
  finish(outcome: Outcome, cancellation: AbortSignal): Promise<string | undefined>;
}

/** How long gathering the event's context may hold up the create. */
const CONTEXT_BUDGET_MS = 30_000;
/** How long GitHub gets for the first comment, and for everything at the end. */
const STARTED_BUDGET_MS = 30_000;
const FINISH_BUDGET_MS = 30_000;
/** After a cancellation the runner kills the process 7.5 s on; the action exits within 2 s. */
const CANCELLED_BUDGET_MS = 1_200;

export function startGitHubReport(request: ReportRequest): GitHubReport {
  const run = runContext();
  const warn = (message: string) => core.warning(message);
  const { owner, repo } = run.repo;
  const runUrl = `${run.serverUrl}/${owner}/${repo}/actions/runs/${run.runId}`;
  const marker = commentMarker(run, request);
  let repoApi: GitHubApi | undefined;
  let docsApi: GitHubApi | undefined;
  const forRepo = () => (repoApi ??= gitHubApi(request.githubToken, request.userAgent));
  const forDocs = () =>
    request.docsToken === request.githubToken
      ? forRepo()
      : (docsApi ??= gitHubApi(request.docsToken, request.userAgent));

  let thread: Promise<KeptComment | undefined> | undefined;
  const keptComment = (signal: AbortSignal) =>
    (thread ??= (async () => {
      if (!eventHasThread(run.eventName)) {
        core.notice(`No comment posted: a ${run.eventName || 'local'} run has no pull request or issue.`);
        return undefined;
      }
      try {
        const found = await findThread(forRepo(), run, signal);
        if (!found.thread) {
          core.notice(`No comment posted: ${found.none}.`);
          return undefined;
        }
        return new KeptComment(forRepo(), found.thread, marker, warn);
      } catch (error) {
        warn(
          describeGitHubFault(error, {
            what: 'find the pull request the pushed commit came from',
            token: 'githubToken',
            permission: 'contents: read and pull-requests: read',
            repo: `${owner}/${repo}`,
          }),
        );
        // A passing fault (5xx, the network): the end of the job asks again.
        if (!isFinalFault(error)) thread = undefined;
        return undefined;
      }
    })());

  let posting: Promise<unknown> | undefined;

  return {
    async contextFor(limit, cancellation) {
      if (!eventHasContext(run.eventName)) {
        core.info(`No context appended: a ${run.eventName || 'local'} run changes nothing to describe.`);
        return '';
      }
      const signal = AbortSignal.any([cancellation, AbortSignal.timeout(CONTEXT_BUDGET_MS)]);
      try {
        const context = await gatherContext(forRepo(), run, warn, signal);
        const text = context ? renderContext(context, limit) : '';
        core.info(
          text
            ? `Appended ${text.length} characters of context from the ${run.eventName} event (${context?.commits.length ?? 0} commits, ${context?.files.length ?? 0} files).`
            : context
              ? 'No context appended: contextLimit leaves no room for even its header.'
              : `No context appended: the ${run.eventName} event changed nothing to describe.`,
        );
        return text;
      } catch (error) {
        // A cancelled step ends here; the caller says nothing was sent.
        if (cancellation.aborted) throw cancellation.reason;
        warn(
          `Could not gather the event's context: ${describeThrown(error)}. The job is created without it.`,
        );
        return '';
      }
    },

    started(jobId, job) {
      if (!request.comment) return;
      const signal = AbortSignal.timeout(STARTED_BUDGET_MS);
      posting = (async () => {
        const comment = await keptComment(signal);
        await comment?.write(commentBody(marker, { jobId, job, ended: false, runUrl }), signal);
      })().catch((error: unknown) => warn(`Could not post the comment: ${describeThrown(error)}.`));
    },

    async finish(outcome, cancellation) {
      const { signal, done } = budget(cancellation);
      const cancelled = cancellation.aborted;
      let url: string | undefined;
      try {
        if (request.comment) {
          // The first write must be done before the last one starts, or both could create a comment.
          if (posting && !(await settledWithin(posting, signal))) {
            warn('Could not update the comment with how the job ended: GitHub did not answer in time.');
          } else {
            const comment = await keptComment(signal);
            url = await comment?.write(
              commentBody(marker, { ...outcome, cancelled, ended: true, runUrl }),
              signal,
            );
          }
        }
        await routeDocs(outcome.job, outcome.failure, signal);
      } catch (error) {
        warn(`Could not report the job on GitHub: ${describeThrown(error)}.`);
      } finally {
        done();
      }
      return url;
    },
  };

  async function routeDocs(job: AgentJob | undefined, failure: string | undefined, signal: AbortSignal) {
    if (request.labels.length + request.reviewers.length === 0) return;
    if (failure || job?.status !== 'completed') return;
    if (!job.prLink) {
      core.info('No docs pull request to label or route to reviewers: the job changed no files.');
      return;
    }
    const pr = docsPullRequest(job.prLink, run.serverUrl);
    if (!pr) {
      core.notice(
        `Labels and reviewers not set: ${printableUrl(job.prLink)} is not a pull request on ${run.serverUrl}.`,
      );
      return;
    }
    await routeDocsPullRequest(forDocs(), pr, request, warn, signal);
  }
}

/**
 * The signal that bounds the GitHub work at the end: 30 s, cut to 1.2 s from the moment the step
 * is cancelled (the action exits within 2 s of the runner's signal). `done` clears its timers.
 */
function budget(cancellation: AbortSignal): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timers = [
    setTimeout(() => controller.abort(), cancellation.aborted ? CANCELLED_BUDGET_MS : FINISH_BUDGET_MS),
  ];
  const onCancel = () => timers.push(setTimeout(() => controller.abort(), CANCELLED_BUDGET_MS));
  cancellation.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      cancellation.removeEventListener('abort', onCancel);
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

/** Whether `work` settles before `signal` aborts. */
function settledWithin(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
    );
  });
}
