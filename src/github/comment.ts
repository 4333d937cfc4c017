import { createHash } from 'node:crypto';
import { formatDuration } from '../duration.js';
import type { AgentJob } from '../job.js';
import type { Warn } from '../log.js';
import { redact } from '../secrets.js';
import { cell, inert, isPullRequestUrl } from '../untrusted.js';
import type { Comment, GitHubApi, RunContext } from './client.js';
import { describeGitHubFault, isFinalFault, type GitHubOperation } from './errors.js';
import { noteLine, type ThreadNote } from './note.js';
import type { Thread } from './target.js';

/**
 * The hidden line that says "this comment is the one this step keeps". It names the workflow,
 * the job, the step, the service, the project and the prompt (or the job id it follows): a re-run
 * finds its own comment again, while matrix legs that differ in any of these keep theirs (legs
 * that send the same prompt to the same project share one). Hashed, so the prompt does not show
 * in the page source.
 */
export function commentMarker(
  run: RunContext,
  key: {
    baseUrl?: string;
    projectId: string;
    prompt?: string;
    jobId?: string;
    thread?: boolean;
    asked?: { id: number };
  },
): string {
  // A thread's comment is named without the prompt: a push, a /docs request and the merge send
  // different prompts to one job, and must find one comment. Without a thread, each /docs request
  // is answered in a comment of its own (its re-runs find it again).
  const named = JSON.stringify([
    `${run.repo.owner}/${run.repo.repo}`,
    run.workflow,
    run.job,
    run.action,
    key.baseUrl ?? '',
    key.projectId,
    ...(key.thread
      ? ['thread']
      : [
          key.prompt ?? '',
          key.prompt === undefined ? (key.jobId ?? '') : '',
          ...(key.asked ? [`request ${key.asked.id}`] : []),
        ]),
  ]);
  return `<!-- agent-job-action:${createHash('sha256').update(named).digest('hex').slice(0, 24)} -->`;
}

/** Where the comment stands; `ended` false while the job is still being waited for. */
export interface CommentState {
  jobId: string;
  job?: AgentJob;
  ended: boolean;
  /** The step's error, when it failed. */
  failure?: string;
  cancelled?: boolean;
  timedOut?: boolean;
  waitedMs?: number;
  runUrl: string;
  /** What the next run on the thread (or a re-run) needs to find this job again. */
  note?: ThreadNote;
}

function headline(state: CommentState): string {
  const { job, failure } = state;
  if (!state.ended)
    return '⏳ **Working**: the agent is writing the docs. This comment is updated when it ends.';
  if (failure) {
    const title = state.cancelled
      ? '🛑 **Cancelled**'
      : job?.status === 'failed'
        ? '❌ **Failed**'
        : job?.status === 'archived'
          ? '🗄️ **Archived**'
          : state.timedOut
            ? '⌛ **Timed out**'
            : '⚠️ **Stopped**';
    return `${title}: ${inert(failure, 2000)}`;
  }
  if (job?.status === 'completed') {
    const link = job.prLink;
    if (!link) return '✅ **Completed** with no changes: the docs needed none, so there is no pull request.';
    const shown = redact(link);
    return isPullRequestUrl(shown)
      ? `✅ **Completed**: <a href="${shown}">${inert(shown, 300)}</a>`
      : `✅ **Completed**, with a link that is not a pull request: ${inert(shown, 300)}`;
  }
  return '⏩ **Started**: the job goes on in the service; this run did not wait for it.';
}

/** The comment's Markdown: far under GitHub's 65,536 characters by construction (cells are cut). */
export function commentBody(marker: string, state: CommentState): string {
  const facts = [`Job ${inert(state.jobId)}`];
  if (state.job) facts.push(`status ${inert(state.job.status, 100)}`);
  if (state.waitedMs !== undefined) facts.push(`time taken ${formatDuration(state.waitedMs)}`);
  facts.push(`<a href="${cell(state.runUrl, 2000)}">workflow run</a>`);
  return [
    marker,
    ...(state.note ? [noteLine(state.note)] : []),
    '### Documentation agent',
    '',
    headline(state),
    '',
    `<sub>${facts.join(' · ')}</sub>`,
    '',
  ].join('\n');
}

/** A word on the thread instead of a job (a bare `/docs`): the action's own text, not the service's. */
export function answerBody(marker: string, text: string, runUrl: string): string {
  return plainBody(marker, `💬 ${text}`, runUrl);
}

/**
 * A request that got no job: the step's error (which may quote the service) as text, so the
 * asker is told on the thread rather than left with nothing.
 */
export function notStartedBody(marker: string, failure: string, runUrl: string): string {
  return plainBody(marker, `⚠️ **Not started**: ${inert(failure, 2000)}`, runUrl);
}

function plainBody(marker: string, headline: string, runUrl: string): string {
  return [
    marker,
    '### Documentation agent',
    '',
    headline,
    '',
    `<sub><a href="${cell(runUrl, 2000)}">workflow run</a></sub>`,
    '',
  ].join('\n');
}

/** GitHub shows at most 2,500 comments on a thread; a server that ignores `page` must not loop. */
const MAX_PAGES = 30;

/**
 * One comment on a thread, written by the token's own identity and carrying the marker. Only
 * such a comment is ever edited: anyone can copy a marker into a comment of their own.
 */
export class KeptComment {
  private id?: number;
  private url?: string;
  private login?: string;
  /** The look-up, once it succeeded (found or not): a run looks for its comment once. */
  private found?: Promise<Comment | undefined>;
  private givenUp = false;
  private readonly op: GitHubOperation;

  constructor(
    private readonly api: GitHubApi,
    private readonly thread: Thread,
    private readonly marker: string,
    private readonly warn: Warn,
    /** The login the token acts as: the only author whose comment is the kept one. */
    private readonly identity: (signal: AbortSignal) => Promise<string> = (signal) => api.viewerLogin(signal),
  ) {
    const { owner, repo, number, pull, fork } = thread;
    this.op = {
      what: `post the comment on ${owner}/${repo}#${number}`,
      token: 'githubToken',
      permission: pull ? 'pull-requests: write' : 'issues: write',
      repo: `${owner}/${repo}`,
      fork,
    };
  }

  /**
   * The body of the comment this step keeps, as an earlier run left it; `undefined` when there is
   * none or GitHub would not say (a warning).
   */
  async read(signal: AbortSignal): Promise<string | undefined> {
    try {
      return (await this.lookUp(signal))?.body;
    } catch (error) {
      const { owner, repo, number } = this.thread;
      this.warn(
        describeGitHubFault(error, {
          ...this.op,
          what: `read the comments of ${owner}/${repo}#${number}`,
          permission: this.thread.pull ? 'pull-requests: read' : 'issues: read',
        }),
      );
      return undefined;
    }
  }

  /** Posts or updates the comment; its URL, or `undefined` if GitHub would not have it. */
  async write(body: string, signal: AbortSignal): Promise<string | undefined> {
    if (this.givenUp) return this.url;
    const { owner, repo, number } = this.thread;
    try {
      if (this.id === undefined) this.id = (await this.lookUp(signal))?.id;
      let written: Comment | undefined;
      if (this.id !== undefined) {
        try {
          written = await this.api.updateComment({ owner, repo, comment_id: this.id, body }, signal);
        } catch (error) {
          // Deleted since it was found or written: a new one takes its place.
          if ((error as { status?: unknown }).status !== 404) throw error;
        }
      }
      written ??= await this.api.createComment({ owner, repo, issue_number: number, body }, signal);
      this.id = written.id;
      this.url = written.url;
    } catch (error) {
      this.warn(describeGitHubFault(error, this.op));
      if (isFinalFault(error)) this.givenUp = true;
    }
    return this.url;
  }

  private lookUp(signal: AbortSignal): Promise<Comment | undefined> {
    if (!this.found) {
      const looking = this.find(signal);
      this.found = looking;
      // A passing fault is asked again next time; an answer is kept.
      looking.catch(() => {
        if (this.found === looking) this.found = undefined;
      });
    }
    return this.found;
  }

  /** Pages through every comment: on a long thread the kept one may be far from the first page. */
  private async find(signal: AbortSignal): Promise<Comment | undefined> {
    this.login ??= await this.identity(signal);
    const { owner, repo, number } = this.thread;
    let pages = 0;
    for await (const comments of this.api.comments({ owner, repo, issue_number: number }, signal)) {
      // Only at the very start: any workflow that echoes outside text could plant the marker
      // inside a comment of this token's identity.
      const mine = comments.find((c) => c.login === this.login && c.body.startsWith(this.marker));
      if (mine) return mine;
      if (++pages >= MAX_PAGES) break;
    }
    return undefined;
  }
}
