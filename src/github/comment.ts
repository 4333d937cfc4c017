import { createHash } from 'node:crypto';
import { formatDuration } from '../core/duration.js';
import type { AgentJob } from '../core/job.js';
import type { KeptState } from '../core/ports.js';
import type { Warn } from '../core/log.js';
import { usesLine } from '../core/uses.js';
import { redact } from '../core/secrets.js';
import { cell, inert, isPlainHttpUrl, isPullRequestUrl, printableUrl } from '../core/untrusted.js';
import type { Comment, GitHubApi, RunContext } from './client.js';
import { CommentPages } from './comment-pages.js';
import { describeGitHubFault, faultOf, type GitHubOperation } from './errors.js';
import { noteLine, type ThreadNote } from './note.js';
import { fateSentence, type Superseded } from './superseded-words.js';
import type { Thread } from './target.js';

/**
 * The hidden line that says "this comment is the one this step keeps". It names the workflow,
 * the job, the step, the service, the project and the prompt (or the job id it follows): a re-run
 * finds its own comment again, while matrix legs that differ in any of these keep theirs (legs
 * that send the same prompt to the same project share one). Hashed, so the prompt does not show
 * in the page source.
 */
/** How every line of this action's own in a comment begins: its marker, its note, the latest run's. */
export const MARKER_PREFIX = '<!-- agent-job-action:';

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
  return `${MARKER_PREFIX}${createHash('sha256').update(named).digest('hex').slice(0, 24)} -->`;
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
  /** A follow-up the service refused outright, whose thread this job took over. */
  replaced?: { jobId: string; prLink?: string | null };
  /** What became of the docs pull requests earlier jobs of the thread left (see supersede.ts). */
  superseded?: Superseded[];
  /** The `/docs` requests this run sent, oldest first: named when there were several. */
  carried?: { author: string; url: string }[];
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
    // The docs pull request the job has opened so far stays on the page: it is still open.
    const pr = job?.prLink ? pullRequestLink(job.prLink) : undefined;
    return `${title}: ${inert(failure, 2000)}${pr ? `\n\nThe docs pull request so far: ${pr}` : ''}`;
  }
  if (job?.status === 'completed') {
    const link = job.prLink;
    if (!link) return '✅ **Completed** with no changes: the docs needed none, so there is no pull request.';
    const pr = pullRequestLink(link);
    return pr
      ? `✅ **Completed**: ${pr}`
      : `✅ **Completed**, with a link that is not a pull request: ${inert(redact(link), 300)}`;
  }
  return '⏩ **Started**: the job goes on in the service; this run did not wait for it.';
}

/** The docs pull request as the comment's one live link, only when it is a pull request URL. */
export function pullRequestLink(link: string): string | undefined {
  const shown = redact(link);
  return isPullRequestUrl(shown) ? `<a href="${shown}">${inert(shown, 300)}</a>` : undefined;
}

/** The line that says a refused follow-up's thread went to a new job, and what became of its docs PR. */
function replacedLine(
  replaced: NonNullable<CommentState['replaced']>,
  jobId: string,
  superseded: Superseded[],
): string {
  const pr = replaced.prLink ? pullRequestLink(replaced.prLink) : undefined;
  const found = superseded.find((s) => s.link === replaced.prLink) ?? { fate: 'open' as const };
  return `↪️ The service no longer takes messages for job ${inert(replaced.jobId)}; job ${inert(jobId)} continues the thread.${pr ? ` ${fateSentence(pr, found, jobId, replaced.jobId)}` : ''}`;
}

/** The lines on earlier docs pull requests other than the one the replaced line names. */
function supersededLines(state: CommentState): string[] {
  const named = state.replaced?.prLink;
  return (state.superseded ?? []).flatMap((one) => {
    const pr = one.link === named ? undefined : pullRequestLink(one.link);
    return pr ? [`↪️ ${fateSentence(pr, one, state.jobId)}`, ''] : [];
  });
}

/** The line that names the requests a run sent together, each by its link and author. */
function carriedLine(requests: NonNullable<CommentState['carried']>): string {
  const each = requests.map(({ author, url }) => {
    const shown = redact(url);
    const name = isPlainHttpUrl(shown) ? `<a href="${cell(shown, 2000)}">request</a>` : 'request';
    // In a code span: the author is named, not mentioned (an edit would notify them again).
    return `${name} by ${inert(author, 100)}`;
  });
  return `📨 This run sent ${requests.length} requests queued on the thread: ${each.join(', ')}.`;
}

/** Where the preview line starts: one a comment. */
const PREVIEW = '🔎 <a href="';

/** The docs PR's preview, by its https URL (checked where it was read). */
function previewLine(url: string): string {
  return `${PREVIEW}${cell(url, 2000)}">Preview of the docs pull request</a>`;
}

/**
 * The comment's body with the preview line for `url`, in place of one it has (a lane run's word
 * once the docs PR deployed), above the facts line, or at the end of a comment that has none.
 */
export function withPreview(body: string, url: string): string {
  const lines = body.split('\n');
  const at = lines.findIndex((line) => line.startsWith(PREVIEW));
  if (at >= 0) {
    lines[at] = previewLine(url);
    return lines.join('\n');
  }
  const facts = lines.findIndex((line) => line.startsWith('<sub>'));
  if (facts >= 0) lines.splice(facts, 0, previewLine(url), '');
  else lines.push(previewLine(url), '');
  return lines.join('\n');
}

/** The comment's Markdown: far under GitHub's 65,536 characters by construction (cells are cut). */
export function commentBody(marker: string, state: CommentState): string {
  const facts = [`Job ${inert(state.jobId)}`];
  if (state.job) facts.push(`status ${inert(state.job.status, 100)}`);
  if (state.waitedMs !== undefined) facts.push(`time taken ${formatDuration(state.waitedMs)}`);
  // A thread's runs share one job and one budget of the service's quota: its total so far.
  if (state.note) facts.push(usesLine(state.note.uses ?? 0));
  facts.push(`<a href="${cell(state.runUrl, 2000)}">workflow run</a>`);
  return [
    marker,
    ...(state.note ? [noteLine(state.note)] : []),
    '### Documentation agent',
    '',
    headline(state),
    '',
    ...(state.replaced ? [replacedLine(state.replaced, state.jobId, state.superseded ?? []), ''] : []),
    ...supersededLines(state),
    ...(state.carried && state.carried.length > 1 ? [carriedLine(state.carried), ''] : []),
    ...(state.note?.preview ? [previewLine(state.note.preview), ''] : []),
    `<sub>${facts.join(' · ')}</sub>`,
    '',
  ].join('\n');
}

/**
 * A word on the thread instead of a job (a bare `/docs`): the action's own text, not the service's.
 * The thread's note stays: a bare `/docs` must not make the next request start a second job.
 */
export function answerBody(
  marker: string,
  text: string,
  runUrl: string,
  note?: ThreadNote,
  previous?: string,
): string {
  // Under the thread's last result, as a run with no job adds its failure: an answer (a bare
  // request, a spent budget) never hides the docs PR the thread already has.
  return [
    marker,
    ...(note ? [noteLine(note)] : []),
    ...earlierResult(previous, '### Documentation agent'),
    LATEST,
    `💬 ${text} (<a href="${cell(runUrl, 2000)}">workflow run</a>)`,
    '',
  ].join('\n');
}

/** The visible part of the comment before its latest word, or `heading` on a new comment. */
function earlierResult(previous: string | undefined, heading: string): string[] {
  const earlier = previous
    ?.split(LATEST)[0]
    ?.split('\n')
    .filter((line) => !line.startsWith(MARKER_PREFIX))
    .join('\n')
    .trim();
  return earlier ? [earlier, ''] : [heading, ''];
}

/** Where the last run's word starts in the comment, when it ended before any job. */
const LATEST = '<!-- agent-job-action:latest -->';

/**
 * A run that ended before the service confirmed a job (a refusal, a fault, a cancellation): its
 * failure goes under the last result, so an old "✅ Completed" is never the only thing on the
 * page, and the note stays as it was. The step's error may quote the service: it is shown as text.
 */
export function latestRunBody(
  marker: string,
  state: { failure: string; runUrl: string; previous?: string; note?: ThreadNote; jobId?: string },
): string {
  const what = state.jobId
    ? `The latest run's follow-up to job ${inert(state.jobId)} was not confirmed by the service`
    : 'The latest run started no job';
  const latest = `⚠️ **${what}**: ${inert(state.failure, 2000)} (<a href="${cell(state.runUrl, 2000)}">workflow run</a>)`;
  return [
    marker,
    ...(state.note ? [noteLine(state.note)] : []),
    ...earlierResult(state.previous, '### Documentation agent'),
    LATEST,
    latest,
    '',
  ].join('\n');
}

/**
 * The most pages of a thread's comments a run reads looking for the action's own: GitHub shows at
 * most 2,500 comments on a thread, and a server that ignores `page` must not loop.
 */
export const MAX_PAGES = 30;

/**
 * One comment on a thread, written by the token's own identity and carrying the marker. Only
 * such a comment is ever edited: anyone can copy a marker into a comment of their own. It keeps
 * only its look-up (the same whenever it is asked); what a write left is a value the next write
 * is handed.
 */
export class KeptComment {
  private login?: string;
  /** The look-up, once it succeeded (found or not): a run looks for its comment once. */
  private found?: Promise<Comment | undefined>;
  private readonly op: GitHubOperation;

  constructor(
    private readonly api: GitHubApi,
    private readonly thread: Thread,
    private readonly marker: string,
    private readonly warn: Warn,
    /** The login the token acts as: the only author whose comment is the kept one. */
    private readonly identity: (signal: AbortSignal) => Promise<string> = (signal) => api.viewerLogin(signal),
    /** Where each write is said (the log's info): a run's log tells what it wrote on GitHub. */
    private readonly say: (line: string) => void = () => undefined,
    /** The thread's pages as the run reads them: shared with its other readers, each read once. */
    private readonly pages = new CommentPages(api, thread),
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

  /** The comment's id, once it exists: comment ids grow, so it tells which comments came after it. */
  async id(signal: AbortSignal): Promise<number | undefined> {
    return (await this.lookUp(signal))?.id;
  }

  /** The comment's body as GitHub has it now, read again (another run may have written since). */
  async bodyNow(signal: AbortSignal): Promise<string | undefined> {
    this.found = undefined;
    this.pages.forget();
    return this.body(signal);
  }

  /** The comment's body as it stands; a fault is thrown (a thread must not read it as none). */
  async body(signal: AbortSignal): Promise<string | undefined> {
    return (await this.lookUp(signal))?.body;
  }

  /**
   * Posts or updates the comment, going on from what this run last wrote (`last`); what it left
   * (its URL, or none if GitHub would not have it). A body made from the comment as it stands
   * (`previous`, undefined when there is none yet) keeps what the comment holds — the thread's
   * note — with one look-up and one warning at most.
   */
  async write(
    body: string | ((previous: string | undefined) => string),
    signal: AbortSignal,
    last: KeptState = {},
  ): Promise<KeptState> {
    if (last.givenUp) return last;
    const { owner, repo, number } = this.thread;
    try {
      const found = await this.lookUp(signal);
      const id = last.id ?? found?.id;
      const text = typeof body === 'string' ? body : body(last.body ?? found?.body);
      let written: Comment | undefined;
      if (id !== undefined) {
        try {
          written = await this.api.updateComment({ owner, repo, comment_id: id, body: text }, signal);
        } catch (error) {
          // Deleted since it was found or written: a new one takes its place.
          if (!faultOf(error).notFound) throw error;
        }
      }
      const updated = written !== undefined;
      written ??= await this.api.createComment({ owner, repo, issue_number: number, body: text }, signal);
      this.say(
        `${updated ? 'Updated' : 'Posted'} the comment on ${owner}/${repo}#${number}: ${printableUrl(written.url)}`,
      );
      // What a later read of this run finds is what it wrote (a waiting job's end, then the decision).
      const own = written;
      this.found = Promise.resolve({ ...own, body: text });
      return { id: written.id, url: written.url, body: text };
    } catch (error) {
      this.warn(describeGitHubFault(error, this.op));
      return faultOf(error).final ? { ...last, givenUp: true } : last;
    }
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
    let last = 1;
    for (let n = 1; n <= Math.min(last, MAX_PAGES); n++) {
      const page = await this.pages.page(n, signal);
      last = page.last;
      // Only at the very start: any workflow that echoes outside text could plant the marker
      // inside a comment of this token's identity.
      const mine = page.comments.find((c) => c.login === this.login && c.body.startsWith(this.marker));
      if (mine) return mine;
    }
    return undefined;
  }
}
