import type { Clock } from '../clock.js';
import type { Access } from '../gate.js';
import { isJobId, type AgentJob } from '../job.js';
import { describeThrown, type Log } from '../log.js';
import { isPullRequestUrl, printableUrl, quote } from '../untrusted.js';
import type { GitHubApi, RunContext } from './client.js';
import type { RequestComment } from '../trigger.js';
import { answerBody, commentBody, commentMarker, KeptComment, notStartedBody } from './comment.js';
import { renderContext } from './context.js';
import { docsPullRequest, routeDocsPullRequest } from './docs-pr.js';
import { describeGitHubFault, isFinalFault } from './errors.js';
import { pushedOnto, runCommits, type RunCommits } from './commits.js';
import { eventHasContext, gatherContext, gatherSince } from './gather.js';
import { readNote, type ThreadNote } from './note.js';
import {
  CommitStatus,
  statusContext,
  statusDescription,
  type StatusNote,
  type StatusState,
} from './status.js';
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
  /** The `/docs` comment that asked for this run's job: it gets a reaction once the job exists. */
  asked?: RequestComment;
  /** One job per thread: the comment is named without the prompt, and its note is read first. */
  thread: boolean;
  /** A commit status follows the job. */
  status: boolean;
}

/** What GitHub remembers of this step's job, read before anything is sent. */
export interface Recall {
  /** The note in this step's comment on the thread: the thread's job. */
  note?: ThreadNote;
  /** This step's status on the run's commit (read on a re-run): the job an earlier attempt started. */
  status?: StatusNote;
  /** This step's status on the push's `before` commit: the branch's job. */
  branch?: StatusNote;
}

/** A docs pull request as a follow-up needs to know it. */
export type DocsPullState = 'open' | 'closed' | 'unknown';

/** How the step ended, for the comment's last update. */
export interface Outcome {
  jobId: string;
  job?: AgentJob;
  failure?: string;
  timedOut: boolean;
  waitedMs: number;
}

/** What the GitHub side works with; the chunk's entry gives the real ones, tests their own. */
export interface ReportDeps {
  run: RunContext;
  /** The GitHub API as a token sees it. */
  api: (token: string) => GitHubApi;
  log: Log;
  /** Bounds every piece of GitHub work. */
  clock: Clock;
}

/** How long gathering the event's context may hold up the create. */
const CONTEXT_BUDGET_MS = 30_000;
/** How long GitHub gets for the first comment, and for everything at the end. */
const STARTED_BUDGET_MS = 30_000;
const FINISH_BUDGET_MS = 30_000;
/** After a cancellation the runner kills the process 7.5 s on; the action exits within 2 s. */
const CANCELLED_BUDGET_MS = 1_200;

/**
 * The GitHub side of one run: the event's context for the prompt, the kept comment (posted when
 * the job exists, updated when it ends), and the docs pull request's labels and reviewers. Every
 * GitHub fault is a warning: nothing here changes the job's result.
 */
export class GitHubReport {
  private readonly marker: string;
  private readonly runUrl: string;
  private readonly apis = new Map<string, GitHubApi>();
  /** The thread's kept comment, once looked for; cleared after a passing fault to ask again. */
  private thread?: Promise<KeptComment | undefined>;
  /** The first post, started without waiting: the last update must not race it. */
  private posting?: Promise<unknown>;
  /** The reaction on the comment that asked, once. */
  private reaction?: Promise<void>;
  /** The commits the run is about, once asked. */
  private commits?: Promise<RunCommits>;
  /** The note an earlier run left, once read: the next note keeps its head on a comment event. */
  private previous?: ThreadNote;
  private readonly status?: CommitStatus;
  /** The login the token acts as, once asked: only what it wrote is the action's own. */
  private identity?: Promise<string>;
  /** Whether the job's id was left out of a status description (said once). */
  private idLeftOutSaid = false;

  constructor(
    private readonly request: ReportRequest,
    private readonly deps: ReportDeps,
  ) {
    const { run } = deps;
    this.marker = commentMarker(run, request);
    this.runUrl = `${run.serverUrl}/${run.repo.owner}/${run.repo.repo}/actions/runs/${run.runId}`;
    if (request.status) {
      const context = statusContext(run, request);
      this.status = new CommitStatus(
        () => this.forRepo(),
        (signal) => this.ownLogin(signal),
        run,
        context,
        this.runUrl,
        this.warn,
      );
    }
  }

  /**
   * What the triggering event changed, as a section to append to the prompt (at most `limit`
   * characters), or `''`: events that change nothing add nothing and make no request.
   */
  async contextFor(limit: number, cancellation: AbortSignal): Promise<string> {
    const { run, log } = this.deps;
    if (!eventHasContext(run.eventName)) {
      log.info(`No context appended: a ${run.eventName || 'local'} run changes nothing to describe.`);
      return '';
    }
    return this.beforeTheCreate(
      CONTEXT_BUDGET_MS,
      cancellation,
      async (signal) => {
        const context = await gatherContext(this.forRepo(), run, this.warn, signal);
        const text = context ? renderContext(context, limit) : '';
        log.info(
          text
            ? `Appended ${text.length} characters of context from the ${run.eventName} event (${context?.commits.length ?? 0} commits, ${context?.files.length ?? 0} files).`
            : context
              ? 'No context appended: contextLimit leaves no room for even its header.'
              : `No context appended: the ${run.eventName} event changed nothing to describe.`,
        );
        return text;
      },
      (error) => {
        this.warn(
          `Could not gather the event's context: ${describeThrown(error)}. The job is created without it.`,
        );
        return '';
      },
    );
  }

  /**
   * For a follow-up on the thread: what changed since `last`, the head the job last saw (a pull
   * request's new commits), within `limit`; the event's whole context on any other event.
   */
  async contextSince(last: string, limit: number, cancellation: AbortSignal): Promise<string> {
    const { run, log } = this.deps;
    return this.beforeTheCreate(
      CONTEXT_BUDGET_MS,
      cancellation,
      async (signal) => {
        const { head } = await this.runCommits(signal);
        if (!head || head === last) return await this.contextFor(limit, cancellation);
        const context = await gatherSince(this.forRepo(), run, last, head, this.warn, signal);
        const text = context ? renderContext(context, limit) : '';
        if (text)
          log.info(`Appended ${text.length} characters of context: what changed since ${last.slice(0, 12)}.`);
        return text;
      },
      (error) => {
        this.warn(
          `Could not gather the event's context: ${describeThrown(error)}. The follow-up is sent without it.`,
        );
        return '';
      },
    );
  }

  /**
   * What earlier runs left on GitHub for this step: the note in its comment on the thread, and,
   * with `status`, its status on this run's commit (for a re-run) and on the push's `before`
   * commit (the branch's job). Faults are warnings and read as nothing.
   */
  async recall(cancellation: AbortSignal): Promise<Recall> {
    const { run } = this.deps;
    const recall: Recall = {};
    return this.beforeTheCreate(
      CONTEXT_BUDGET_MS,
      cancellation,
      async (signal) => {
        if (this.request.comment && eventHasThread(run.eventName)) {
          const body = await (await this.keptComment(signal))?.read(signal);
          recall.note = this.trusted(body ? readNote(body) : undefined, 'the kept comment');
          this.previous = recall.note;
        }
        if (this.status) {
          const { sha } = await this.runCommits(signal);
          if (run.runAttempt > 1 && sha)
            recall.status = this.trusted(await this.status.read(sha, signal), 'the commit status');
          const before = pushedOnto(run);
          if (this.request.thread && before && !recall.note)
            recall.branch = this.trusted(await this.status.read(before, signal), 'the commit status');
        }
        return recall;
      },
      (error) => {
        this.warn(`Could not read what earlier runs left on GitHub: ${describeThrown(error)}.`);
        return recall;
      },
    );
  }

  /**
   * Whether the docs pull request a follow-up would go to is still open, read with `docsToken`.
   * `unknown` (with a warning) when it cannot be read: a follow-up never goes into a pull request
   * the action cannot see.
   */
  async docsPullState(prLink: string, cancellation: AbortSignal): Promise<DocsPullState> {
    const { run } = this.deps;
    const pr = docsPullRequest(prLink, run.serverUrl);
    if (!pr) {
      this.warn(
        `Could not read the docs pull request ${printableUrl(prLink)}: it is not a pull request on ${run.serverUrl}. A new job is started.`,
      );
      return 'unknown';
    }
    return this.beforeTheCreate(
      STARTED_BUDGET_MS,
      cancellation,
      async (signal): Promise<DocsPullState> => {
        const pull = await this.forDocs().getPull(
          { owner: pr.owner, repo: pr.repo, pull_number: pr.number },
          signal,
        );
        return pull.state === 'open' && !pull.merged ? 'open' : 'closed';
      },
      (error) => {
        this.warn(
          `${describeGitHubFault(error, {
            what: `read the docs pull request ${pr.owner}/${pr.repo}#${pr.number}`,
            token: 'docsToken',
            permission: 'pull-requests: read',
            repo: `${pr.owner}/${pr.repo}`,
          })} A new job is started.`,
        );
        return 'unknown';
      },
    );
  }

  /**
   * The actor's access to the repository (its base permission and its role's name), for the
   * gate; `undefined`, with a warning, when GitHub does not tell: the actor is then refused.
   */
  async accessOf(actor: string, cancellation: AbortSignal): Promise<Access | undefined> {
    const { owner, repo } = this.deps.run.repo;
    return this.beforeTheCreate(
      STARTED_BUDGET_MS,
      cancellation,
      (signal): Promise<Access | undefined> =>
        this.forRepo().collaboratorAccess({ owner, repo, username: actor }, signal),
      (error) => {
        this.warn(
          describeGitHubFault(error, {
            what: `read the role of ${actor} on ${owner}/${repo}`,
            token: 'githubToken',
            permission: 'read access (metadata)',
            repo: `${owner}/${repo}`,
          }),
        );
        return undefined;
      },
    );
  }

  /** A bare `/docs`: the kept comment says what a request looks like; its URL. */
  answer(text: string, cancellation: AbortSignal): Promise<string | undefined> {
    return this.writeOnly(answerBody(this.marker, text, this.runUrl), cancellation);
  }

  /** A request that ended before any job existed: the kept comment says why; its URL. */
  notStarted(failure: string, cancellation: AbortSignal): Promise<string | undefined> {
    return this.writeOnly(notStartedBody(this.marker, failure, this.runUrl), cancellation);
  }

  private async writeOnly(body: string, cancellation: AbortSignal): Promise<string | undefined> {
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    try {
      const comment = await this.keptComment(signal);
      return await comment?.write(body, signal);
    } finally {
      done();
    }
  }

  /**
   * The job exists and is being waited for: post (or, on a re-run, update) the comment, and set
   * the commit status to pending.
   */
  started(jobId: string, job: AgentJob | undefined): void {
    void this.acknowledge();
    if (!this.request.comment && !this.status) return;
    const { signal, done } = this.budget(STARTED_BUDGET_MS);
    this.posting = Promise.all([
      (async () => {
        if (!this.request.comment) return;
        const comment = await this.keptComment(signal);
        const note = await this.note(jobId, signal);
        await comment?.write(this.body({ jobId, job, ended: false, note }), signal);
      })(),
      this.writeStatus('pending', 'Working', jobId, this.runUrl, signal),
    ])
      .catch((error: unknown) => this.warn(`Could not post the comment: ${describeThrown(error)}.`))
      .finally(done);
  }

  /**
   * The step ends: the comment's last update, then labels and reviewers; the comment's URL.
   * `cancellation` is the step's: once it fires, GitHub gets only a short while more.
   */
  async finish(outcome: Outcome, cancellation: AbortSignal): Promise<string | undefined> {
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    const cancelled = cancellation.aborted;
    let url: string | undefined;
    try {
      await settledWithin(this.acknowledge(), signal);
      // The first writes must be done before the last ones start, or both could create a
      // comment, or the pending status land after the final one.
      if (this.posting && !(await settledWithin(this.posting, signal))) {
        if (this.request.comment) {
          this.warn('Could not update the comment with how the job ended: GitHub did not answer in time.');
        }
      } else {
        if (this.request.comment) {
          const comment = await this.keptComment(signal);
          const note = await this.note(outcome.jobId, signal);
          url = await comment?.write(this.body({ ...outcome, cancelled, ended: true, note }), signal);
        }
        await this.finalStatus(outcome, cancelled, signal);
      }
      await this.routeDocs(outcome.job, outcome.failure, signal);
    } catch (error) {
      this.warn(`Could not report the job on GitHub: ${describeThrown(error)}.`);
    } finally {
      done();
    }
    return url;
  }

  private readonly warn = (message: string): void => this.deps.log.warning(message);

  /**
   * A record read back from GitHub names a job only when its id obeys the service's rules: an id
   * such as `..` would otherwise become a dot segment of the next request's path.
   */
  private trusted<T extends { job?: string }>(record: T | undefined, where: string): T | undefined {
    if (record?.job === undefined || isJobId(record.job)) return record;
    this.warn(
      `Ignored the job named in ${where}: ${quote(record.job, 100)} is not a job id the service gives.`,
    );
    return undefined;
  }

  /** The login the token acts as, asked once (again after a fault). */
  private ownLogin(signal: AbortSignal): Promise<string> {
    if (!this.identity) {
      const asking = this.forRepo().viewerLogin(signal);
      this.identity = asking;
      asking.catch(() => {
        if (this.identity === asking) this.identity = undefined;
      });
    }
    return this.identity;
  }

  private runCommits(signal: AbortSignal): Promise<RunCommits> {
    return (this.commits ??= runCommits(this.forRepo(), this.deps.run, this.warn, signal));
  }

  /** The note for this job: a comment event saw no new commit, so the last head stays. */
  private async note(jobId: string, signal: AbortSignal): Promise<ThreadNote> {
    const { run } = this.deps;
    const { head } = await this.runCommits(signal);
    const last = this.previous?.job === jobId ? this.previous.head : undefined;
    const seen = head ?? last;
    return { job: jobId, ...(seen ? { head: seen } : {}), run: run.runId, attempt: run.runAttempt };
  }

  private async writeStatus(
    state: StatusState,
    word: string,
    jobId: string,
    target: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (!this.status) return;
    const { sha } = await this.runCommits(signal);
    if (!sha) {
      if (state === 'pending')
        this.deps.log.notice('No commit status: the event names no commit (an issue).');
      return;
    }
    const description = statusDescription(word, jobId, this.deps.run.runId);
    if (!description.fits && !this.idLeftOutSaid) {
      this.idLeftOutSaid = true;
      this.warn(
        `The job id ${description.why}: the status leaves it out, so a re-run cannot resume from the status.`,
      );
    }
    await this.status.write(sha, state, description.text, target, signal);
  }

  private finalStatus(outcome: Outcome, cancelled: boolean, signal: AbortSignal): Promise<void> {
    const { job, failure, timedOut, jobId } = outcome;
    if (!failure && job?.status === 'completed') {
      const link = job.prLink ?? '';
      // The check's link goes to the docs pull request only when the service's link is one: any
      // other URL it sends would be a link GitHub shows as the action's.
      return this.writeStatus(
        'success',
        link ? 'Completed' : 'Completed, no changes',
        jobId,
        isPullRequestUrl(link) ? link : this.runUrl,
        signal,
      );
    }
    if (job?.status === 'failed') return this.writeStatus('failure', 'Failed', jobId, this.runUrl, signal);
    if (job?.status === 'archived')
      return this.writeStatus('failure', 'Archived', jobId, this.runUrl, signal);
    // wait: false: the job goes on, and so does the pending status.
    if (!failure) return this.writeStatus('pending', 'Goes on in the service', jobId, this.runUrl, signal);
    const word = cancelled ? 'Cancelled' : timedOut ? 'Timed out' : 'Stopped';
    return this.writeStatus('error', word, jobId, this.runUrl, signal);
  }

  /** The 👀 on the `/docs` comment that asked: its request was taken and a job exists. */
  private acknowledge(): Promise<void> {
    const { asked } = this.request;
    if (!asked) return Promise.resolve();
    return (this.reaction ??= (async () => {
      const { owner, repo } = this.deps.run.repo;
      const { signal, done } = this.budget(STARTED_BUDGET_MS);
      try {
        await this.forRepo().react(
          { owner, repo, comment_id: asked.id, review: asked.review, content: 'eyes' },
          signal,
        );
      } catch (error) {
        this.warn(
          describeGitHubFault(error, {
            what: `react to the comment that asked for docs on ${owner}/${repo}`,
            token: 'githubToken',
            permission: asked.review ? 'pull-requests: write' : 'issues: write or pull-requests: write',
            repo: `${owner}/${repo}`,
          }),
        );
      } finally {
        done();
      }
    })());
  }

  private body(state: Omit<Parameters<typeof commentBody>[1], 'runUrl'>): string {
    return commentBody(this.marker, { ...state, runUrl: this.runUrl });
  }

  private api(token: string): GitHubApi {
    let api = this.apis.get(token);
    if (!api) this.apis.set(token, (api = this.deps.api(token)));
    return api;
  }

  private forRepo(): GitHubApi {
    return this.api(this.request.githubToken);
  }

  private forDocs(): GitHubApi {
    return this.api(this.request.docsToken || this.request.githubToken);
  }

  private keptComment(signal: AbortSignal): Promise<KeptComment | undefined> {
    return (this.thread ??= this.findKeptComment(signal));
  }

  private async findKeptComment(signal: AbortSignal): Promise<KeptComment | undefined> {
    const { run, log } = this.deps;
    if (!eventHasThread(run.eventName)) {
      log.notice(`No comment posted: a ${run.eventName || 'local'} run has no pull request or issue.`);
      return undefined;
    }
    try {
      const found = await findThread(this.forRepo(), run, signal);
      if (!found.thread) {
        log.notice(`No comment posted: ${found.none}.`);
        return undefined;
      }
      return new KeptComment(this.forRepo(), found.thread, this.marker, this.warn, (signal) =>
        this.ownLogin(signal),
      );
    } catch (error) {
      const { owner, repo } = run.repo;
      this.warn(
        describeGitHubFault(error, {
          what: 'find the pull request the pushed commit came from',
          token: 'githubToken',
          permission: 'contents: read and pull-requests: read',
          repo: `${owner}/${repo}`,
        }),
      );
      // A passing fault (5xx, the network): the end of the job asks again.
      if (!isFinalFault(error)) this.thread = undefined;
      return undefined;
    }
  }

  private async routeDocs(job: AgentJob | undefined, failure: string | undefined, signal: AbortSignal) {
    const { request } = this;
    const { run, log } = this.deps;
    if (request.labels.length + request.reviewers.length === 0) return;
    if (failure || job?.status !== 'completed') return;
    if (!job.prLink) {
      log.info('No docs pull request to label or route to reviewers: the job changed no files.');
      return;
    }
    const pr = docsPullRequest(job.prLink, run.serverUrl);
    if (!pr) {
      log.notice(
        `Labels and reviewers not set: ${printableUrl(job.prLink)} is not a pull request on ${run.serverUrl}.`,
      );
      return;
    }
    await routeDocsPullRequest(this.forDocs(), pr, request, this.warn, signal);
  }

  /**
   * GitHub work the create waits for (context, what earlier runs left, a role, a docs PR): bounded
   * by `ms`, ended at once by a cancellation (nothing has been sent yet, so the step ends), and
   * any other fault is `fallback`'s, which warns and says what the run goes on with.
   */
  private async beforeTheCreate<T>(
    ms: number,
    cancellation: AbortSignal,
    work: (signal: AbortSignal) => Promise<T>,
    fallback: (error: unknown) => T,
  ): Promise<T> {
    const { signal: timed, done } = this.budget(ms);
    try {
      return await work(AbortSignal.any([cancellation, timed]));
    } catch (error) {
      if (cancellation.aborted) throw cancellation.reason;
      return fallback(error);
    } finally {
      done();
    }
  }

  /**
   * A signal that bounds a piece of GitHub work: `ms`, cut to 1.2 s from the moment the step is
   * cancelled (the action exits within 2 s of the runner's signal). `done` stops its clocks.
   */
  private budget(ms: number, cancellation?: AbortSignal): { signal: AbortSignal; done: () => void } {
    const { clock } = this.deps;
    const controller = new AbortController();
    const stop = new AbortController();
    // A timeout, not a cancellation: the GitHub work that it cuts short warns and goes on.
    const abortAfter = (after: number) =>
      clock.sleep(after, stop.signal).then(
        () => controller.abort(new DOMException('GitHub did not answer in time.', 'TimeoutError')),
        () => undefined,
      );
    void abortAfter(cancellation?.aborted ? CANCELLED_BUDGET_MS : ms);
    const onCancel = () => void abortAfter(CANCELLED_BUDGET_MS);
    cancellation?.addEventListener('abort', onCancel, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        cancellation?.removeEventListener('abort', onCancel);
        stop.abort();
      },
    };
  }
}

/** Whether `work` settles before `signal` aborts. */
function settledWithin(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    const settled = () => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    };
    work.then(settled, settled);
  });
}
