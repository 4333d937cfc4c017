import { createHash } from 'node:crypto';
import { formatDuration } from '../duration.js';
import type { AgentJob } from '../job.js';
import { isPlainHttpUrl } from '../log.js';
import { cell } from '../summary.js';
import { PAGE_SIZE, type Comment, type GitHubApi, type RunContext } from './client.js';
import { describeGitHubFault, isFinalFault, type GitHubOperation } from './errors.js';
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
  key: { baseUrl?: string; projectId: string; prompt?: string; jobId?: string },
): string {
  const named = JSON.stringify([
    `${run.repo.owner}/${run.repo.repo}`,
    run.workflow,
    run.job,
    run.action,
    key.baseUrl ?? '',
    key.projectId,
    key.prompt ?? '',
    key.prompt === undefined ? (key.jobId ?? '') : '',
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
}

/**
 * Text in the comment: one line, HTML-escaped and with secrets redacted (the summary's cell),
 * and no `@` left to ping anyone with.
 */
function inert(text: string, max?: number): string {
  return cell(text, max).replace(/@/g, '&#64;');
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
    return isPlainHttpUrl(link)
      ? `✅ **Completed**: <a href="${cell(link, 2000)}">${inert(link)}</a>`
      : `✅ **Completed**: ${inert(link)}`;
  }
  return '⏩ **Started**: the job goes on in the service; this run did not wait for it.';
}

/** The comment's Markdown: far under GitHub's 65,536 characters by construction (cells are cut). */
export function commentBody(marker: string, state: CommentState): string {
  const facts = [`Job <code>${inert(state.jobId, 200)}</code>`];
  if (state.job) facts.push(`status <code>${inert(state.job.status, 100)}</code>`);
  if (state.waitedMs !== undefined) facts.push(`time taken ${formatDuration(state.waitedMs)}`);
  facts.push(`<a href="${cell(state.runUrl, 2000)}">workflow run</a>`);
  return [
    marker,
    '### Documentation agent',
    '',
    headline(state),
    '',
    `<sub>${facts.join(' · ')}</sub>`,
    '',
  ].join('\n');
}

export interface Warn {
  (message: string): void;
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
  private givenUp = false;
  private readonly op: GitHubOperation;

  constructor(
    private readonly api: GitHubApi,
    private readonly thread: Thread,
    private readonly marker: string,
    private readonly warn: Warn,
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

  /** Posts or updates the comment; its URL, or `undefined` if GitHub would not have it. */
  async write(body: string, signal: AbortSignal): Promise<string | undefined> {
    if (this.givenUp) return this.url;
    const { owner, repo, number } = this.thread;
    try {
      this.id ??= (await this.find(signal))?.id;
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

  /** Pages through every comment: on a long thread the kept one may be far from the first page. */
  private async find(signal: AbortSignal): Promise<Comment | undefined> {
    this.login ??= await this.api.viewerLogin(signal);
    const { owner, repo, number } = this.thread;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const comments = await this.api.listComments({ owner, repo, issue_number: number, page }, signal);
      const mine = comments.find((c) => c.login === this.login && c.body.includes(this.marker));
      if (mine) return mine;
      if (comments.length < PAGE_SIZE) return undefined;
    }
    return undefined;
  }
}
