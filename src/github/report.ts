import type { Clock } from '../clock.js';
import { formatDuration } from '../duration.js';
import { ActionFailure } from '../errors.js';
import type { Access } from '../gate.js';
import { isJobId, type AgentJob } from '../job.js';
import { describeThrown, type Log } from '../log.js';
import type { Changed, DocsPull, GitHubPort, Memory, Outcome, ReportRequest, ThreadNote } from '../ports.js';
import { isPullRequestUrl, printableUrl, quote } from '../untrusted.js';
import type { GitHubApi, RunContext } from './client.js';
import { answerBody, commentBody, commentMarker, KeptComment, latestRunBody } from './comment.js';
import { renderContext } from './context.js';
import { routeDocsPullRequest } from './docs-pr.js';
import { enableAutoMerge } from './auto-merge.js';
import { docsPullRequest, GITHUB_COM, samePullRequest, type PullRequestRef } from '../pull-request.js';
import {
  describeGitHubFault,
  identityFault,
  isFinalFault,
  isIdentityFault,
  type GitHubOperation,
} from './errors.js';
import { pushedOnto, runCommits, type RunCommits } from './commits.js';
import { changedFiles, eventHasContext, gatherContext, gatherSince } from './gather.js';
import { nextNote, readNote } from './note.js';
import {
  CommitStatus,
  runOnlyDescription,
  statusContext,
  statusDescription,
  type StatusState,
} from './status.js';
import { eventHasThread, findThread, type Thread } from './target.js';

export type { Outcome, ReportRequest };

/** What the GitHub side works with; the chunk's entry gives the real ones, tests their own. */
export interface ReportDeps {
  run: RunContext;
  /** The GitHub API as a token sees it (at `apiUrl`, when not the run's own). */
  api: (token: string, apiUrl?: string) => GitHubApi;
  /**
   * github.com, where an Enterprise Server run's docs pull request may be: its pages and its API
   * (GITHUB_COM unless told; tests put an emulator there).
   */
  gitHubCom?: { serverUrl: string; apiUrl: string };
  log: Log;
  /** Bounds every piece of GitHub work, and spaces the retries of a read. */
  clock: Clock;
}

/** How long gathering the event's context may hold up the create. */
const CONTEXT_BUDGET_MS = 30_000;
/** How long GitHub gets for the first comment, and for everything at the end. */
const STARTED_BUDGET_MS = 30_000;
const FINISH_BUDGET_MS = 30_000;
/** What a thread reads before the create (the note, statuses up the branch, the docs PR), retries included. */
const RECALL_BUDGET_MS = 60_000;
/** After a cancellation the runner kills the process 7.5 s on; the action exits within 2 s. */
const CANCELLED_BUDGET_MS = 1_200;
/** Waits between tries of a read that met a passing fault: reads are safe to repeat. */
const READ_RETRY_WAITS_MS = [1000, 2000, 4000];
/** How far up the branch a push looks for the commit that names the branch's job. */
const BRANCH_WALK = 20;

/**
 * A GitHub fault that ends the step before anything was sent: a thread whose memory cannot be
 * read must not be read as "nothing", which would start a second job beside the first.
 */
export class ThreadUnreadable extends ActionFailure {
  override name = 'ThreadUnreadable';
}

/**
 * The GitHub side of one run: the actor's access, what earlier runs left, the event's context for
 * the prompt, the kept comment (posted when the job exists, updated when it ends), the commit
 * status, the reaction, and the docs pull request's labels and reviewers. What it learns before
 * the create is handed back as a value (`Memory`) and given to it again at the end: it keeps no
 * state that a call order could get wrong, only look-ups that are the same whenever they run.
 */
export class GitHubReport implements GitHubPort {
  private readonly marker: string;
  private readonly runUrl: string;
  private readonly apis = new Map<string, GitHubApi>();
  /** The thread's kept comment, once looked for; cleared after a passing fault to ask again. */
  private thread?: Promise<{ comment: KeptComment } | { none: string }>;
  /** Whether "no comment posted" was said (once a run). */
  private noneSaid = false;
  /** The first post, started without waiting: the last update must not race it. */
  private posting?: Promise<unknown>;
  /** The reaction on the comment that asked, once. */
  private reaction?: Promise<void>;
  /** The commits the run is about, once asked. */
  private commits?: Promise<RunCommits>;
  private readonly status?: CommitStatus;
  /** The login the token acts as, once asked: only what it wrote is the action's own. */
  private identity?: Promise<string>;
  /** Whether the job's id was left out of a status description (said once). */
  private idLeftOutSaid = false;
  /** The run's own pull request or issue, once asked: the docs pull request is never it. */
  private ownThread?: Promise<{ thread?: Thread; none?: string }>;

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
      );
    }
  }

  /**
   * What the triggering event changed, as a section to append to the prompt (at most `limit`
   * characters), or `''`: events that change nothing add nothing and make no request. With
   * `since` (the head a thread's job last saw), what changed since.
   */
  async context(since: string | undefined, limit: number, cancellation: AbortSignal): Promise<string> {
    const { run, log } = this.deps;
    if (!eventHasContext(run.eventName)) {
      log.info(`No context appended: a ${run.eventName || 'local'} run changes nothing to describe.`);
      return '';
    }
    return this.beforeTheCreate(
      CONTEXT_BUDGET_MS,
      cancellation,
      async (signal) => {
        const { head } = await this.runCommits(signal);
        if (since && head && head !== since) {
          const context = await gatherSince(this.forRepo(), run, since, head, this.warn, signal);
          const text = context ? renderContext(context, limit) : '';
          if (text)
            log.info(
              `Appended ${text.length} characters of context: what changed since ${since.slice(0, 12)}.`,
            );
          return text;
        }
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
          `Could not gather the event's context: ${describeThrown(error)}. The job is sent without it.`,
        );
        return '';
      },
    );
  }

  /**
   * What earlier runs left on GitHub for this step: the note in its comment on the thread, and,
   * with `status`, its own status on this run's commit (for a re-run) and the branch's job (its
   * own status on the newest commit up from the push's `before` that names one). On a thread
   * (`strict`) a read that still fails after its retries ends the step: nothing has been sent, and
   * reading "nothing" would start a second job. Otherwise faults are warnings and read as nothing.
   */
  async recall(strict: boolean, cancellation: AbortSignal): Promise<Memory> {
    const { run } = this.deps;
    const memory: Memory = {};
    return this.beforeTheCreate(
      RECALL_BUDGET_MS,
      cancellation,
      async (signal) => {
        if (this.request.comment && eventHasThread(run.eventName)) {
          const found = await this.retrying(() => this.keptCommentOrThrow(signal), signal);
          const comment = 'comment' in found ? found.comment : undefined;
          const body = comment ? await this.retrying(() => comment.body(signal), signal) : undefined;
          memory.note = this.trusted(body ? readNote(body) : undefined, 'the kept comment');
        }
        if (this.status) {
          const { sha } = await this.runCommits(signal);
          if (run.runAttempt > 1 && sha) {
            const own = await this.retrying(async () => this.status?.read(sha, signal), signal);
            memory.status = this.trusted(own, 'the commit status');
          }
          const before = pushedOnto(run);
          if (this.request.thread && before && !memory.note) {
            memory.branch = await this.branchJob(before, signal);
          }
        }
        return memory;
      },
      (error) => {
        if (strict) throw this.unreadable(error);
        const { owner, repo } = run.repo;
        this.warn(
          isIdentityFault(error)
            ? describeGitHubFault(error, {
                what: 'read what earlier runs left on GitHub',
                token: 'githubToken',
                permission: 'read access',
                repo: `${owner}/${repo}`,
              })
            : `Could not read what earlier runs left on GitHub: ${describeThrown(error)}.`,
        );
        return memory;
      },
    );
  }

  /**
   * The docs pull request a follow-up would go to, read with `docsToken` (retried on passing
   * faults). A pull request on this GitHub that cannot be read ends the step: a follow-up never
   * goes into a pull request the action cannot see, and a new job beside it would fork the thread.
   * One on github.com from another GitHub is read only with a docsToken the workflow gave: without
   * one it is, like a link elsewhere, a pull request whose state cannot be read.
   */
  async docsPull(prLink: string, cancellation: AbortSignal): Promise<DocsPull> {
    const reach = this.docsReach(prLink);
    if ('none' in reach) return { state: 'elsewhere', ...(reach.why ? { why: reach.why } : {}) };
    const { pr, api } = reach;
    const repo = `${pr.owner}/${pr.repo}`;
    return this.beforeTheCreate(
      RECALL_BUDGET_MS,
      cancellation,
      async (signal): Promise<DocsPull> => {
        const pull = await this.retrying(
          () => api.getPull({ owner: pr.owner, repo: pr.repo, pull_number: pr.number }, signal),
          signal,
        );
        const state = pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed';
        return { state, number: pr.number, repo };
      },
      (error) => {
        throw new ThreadUnreadable(
          `${describeGitHubFault(error, {
            what: `read the docs pull request ${repo}#${pr.number}, which the thread's job opened`,
            token: 'docsToken',
            permission: 'pull-requests: read',
            repo,
            fails: true,
          })} Nothing was sent: whether the thread's job is followed up or replaced depends on that pull request. Give docsToken pull-requests: read on ${repo}, then re-run.`,
        );
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

  /** The files the event changed, for `paths`; a list GitHub cannot give says why. */
  async changedFiles(since: string | undefined, cancellation: AbortSignal): Promise<Changed> {
    const { run } = this.deps;
    const { owner, repo } = run.repo;
    return this.beforeTheCreate(
      CONTEXT_BUDGET_MS,
      cancellation,
      async (signal): Promise<Changed> =>
        this.retrying(() => changedFiles(this.forRepo(), run, since, signal), signal),
      (error): Changed => ({
        unreadable: describeGitHubFault(error, {
          what: 'read which files the change touched',
          token: 'githubToken',
          permission: 'contents: read and pull-requests: read',
          repo: `${owner}/${repo}`,
        }),
      }),
    );
  }

  /** A skip on a thread: a success status that says why (naming `jobId`, when given). */
  async skipped(why: string, jobId: string | undefined, cancellation: AbortSignal): Promise<void> {
    if (!this.status) return;
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    try {
      await this.writeStatus('success', why, jobId, this.runUrl, signal);
    } finally {
      done();
    }
  }

  /** `triggerLabel` off the pull request or issue it was applied to, whatever the run's outcome. */
  async removeLabel(name: string, cancellation: AbortSignal): Promise<void> {
    const { owner, repo } = this.deps.run.repo;
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    let number: number | undefined;
    try {
      // A label event names its pull request or issue: finding it sends no request.
      number = (await findThread(this.forRepo(), this.deps.run, signal)).thread?.number;
      if (number === undefined) return;
      await this.forRepo().removeLabel({ owner, repo, issue_number: number, name }, signal);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      this.warn(
        status === 404
          ? `The label ${quote(name, 60)} was already gone from ${owner}/${repo}#${number}, or githubToken cannot see it.`
          : describeGitHubFault(error, {
              what: `remove the label ${name} from ${owner}/${repo}#${number}`,
              token: 'githubToken',
              permission: 'issues: write or pull-requests: write',
              repo: `${owner}/${repo}`,
            }),
      );
    } finally {
      done();
    }
  }

  /** A bare `/docs`: the kept comment says what a request looks like, its note kept; its URL. */
  async answer(text: string, cancellation: AbortSignal): Promise<string | undefined> {
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    try {
      const comment = await this.keptComment(signal);
      return await comment?.write(
        (previous) => answerBody(this.marker, text, this.runUrl, readNote(previous ?? '')),
        signal,
      );
    } finally {
      done();
    }
  }

  /**
   * The job exists and is being waited for: the reaction on the request, the comment posted (or,
   * on a re-run, updated) with the note that names it, and the commit status set to pending.
   */
  started(jobId: string, job: AgentJob | undefined, memory: Memory): void {
    void this.acknowledge();
    if (!this.request.comment && !this.status) return;
    const { signal, done } = this.budget(STARTED_BUDGET_MS);
    this.posting = Promise.all([
      (async () => {
        if (!this.request.comment) return;
        const comment = await this.keptComment(signal);
        const { head } = await this.runCommits(signal);
        await comment?.write(
          (previous) =>
            this.body({ jobId, job, ended: false, note: this.note(jobId, head, memory, previous) }),
          signal,
        );
      })(),
      this.writeStatus('pending', 'Working', jobId, this.runUrl, signal),
    ])
      .catch((error: unknown) => this.warn(`Could not post the comment: ${describeThrown(error)}.`))
      .finally(done);
  }

  /**
   * The step ends: the comment's last update (a run with no job the service confirmed adds its
   * failure under the last result, and leaves the note as it was), the final status, then labels
   * and reviewers; the comment's URL. `cancellation` is the step's: once it fires, GitHub gets only
   * a short while more.
   */
  async finish(outcome: Outcome, cancellation: AbortSignal): Promise<string | undefined> {
    const { signal, done } = this.budget(FINISH_BUDGET_MS, cancellation);
    const cancelled = cancellation.aborted;
    let url: string | undefined;
    try {
      if (outcome.jobId && outcome.confirmed) await settledWithin(this.acknowledge(), signal);
      // The first writes must be done before the last ones start, or both could create a
      // comment, or the pending status land after the final one.
      if (this.posting && !(await settledWithin(this.posting, signal))) {
        if (this.request.comment) {
          this.warn('Could not update the comment with how the job ended: GitHub did not answer in time.');
        }
      } else {
        if (this.request.comment) url = await this.lastComment(outcome, cancelled, signal);
        await this.finalStatus(outcome, cancelled, signal);
      }
      await this.writeOnDocs(outcome.job, outcome.failure, signal);
    } catch (error) {
      this.warn(`Could not report the job on GitHub: ${describeThrown(error)}.`);
    } finally {
      done();
    }
    return url;
  }

  private readonly warn = (message: string): void => this.deps.log.warning(message);

  /** The comment's last word: how the job ended, or, with no job confirmed, the run's failure under the last result. */
  private async lastComment(outcome: Outcome, cancelled: boolean, signal: AbortSignal) {
    const comment = await this.keptComment(signal);
    if (!comment) return undefined;
    const { jobId, confirmed, failure } = outcome;
    if (jobId && confirmed) {
      const { head } = await this.runCommits(signal);
      return comment.write(
        (previous) =>
          this.body({
            ...outcome,
            jobId,
            cancelled,
            ended: true,
            note: this.note(jobId, head, outcome.memory, previous),
          }),
        signal,
      );
    }
    return comment.write(
      (previous) =>
        latestRunBody(this.marker, {
          ...(jobId ? { jobId } : {}),
          failure: failure ?? 'The run ended before the service confirmed a job.',
          runUrl: this.runUrl,
          previous,
          note: outcome.memory.note ?? readNote(previous ?? ''),
        }),
      signal,
    );
  }

  private runCommits(signal: AbortSignal): Promise<RunCommits> {
    return (this.commits ??= runCommits(this.forRepo(), this.deps.run, this.warn, signal));
  }

  /**
   * The note after this run: written from what was read before the create (or, where nothing was,
   * from the comment as it stands), so every writer of the kept comment keeps it.
   */
  private note(
    jobId: string,
    head: string | undefined,
    memory: Memory,
    previous: string | undefined,
  ): ThreadNote {
    const { run } = this.deps;
    const before = memory.note ?? readNote(previous ?? '');
    return nextNote(before, { job: jobId, head, run: run.runId, attempt: run.runAttempt });
  }

  /**
   * The branch's job: this step's own status on `before`, else on the newest commit up the branch
   * that has one naming a job (cancelled runs leave their commits without one); the commit it was
   * found on is the head that job last saw.
   */
  private async branchJob(before: string, signal: AbortSignal): Promise<Memory['branch']> {
    const named = async (sha: string) => {
      const own = this.trusted(
        await this.retrying(async () => this.status?.read(sha, signal), signal),
        'the commit status',
      );
      return own?.job ? { job: own.job, run: own.run, since: sha } : undefined;
    };
    const found = await named(before);
    if (found) return found;
    const { owner, repo } = this.deps.run.repo;
    const history = await this.retrying(
      () => this.forRepo().listCommits({ owner, repo, sha: before, per_page: BRANCH_WALK }, signal),
      signal,
    ).catch((error: unknown) => {
      // A `before` GitHub no longer has (a forced push): no branch to walk up.
      const status = (error as { status?: unknown }).status;
      if (status === 404 || status === 422) return [];
      throw error;
    });
    for (const sha of history.filter((sha) => sha !== before)) {
      const older = await named(sha);
      if (older) return older;
    }
    return undefined;
  }

  private async writeStatus(
    state: StatusState,
    word: string,
    jobId: string | undefined,
    target: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (!this.status) return;
    const { sha, none } = await this.runCommits(signal);
    if (!sha) {
      if (state === 'pending' || !jobId)
        this.deps.log.notice(`No commit status: ${none ?? 'the event names no commit'}.`);
      return;
    }
    const { runId } = this.deps.run;
    let text = runOnlyDescription(word, runId);
    if (jobId) {
      const description = statusDescription(word, jobId, runId);
      if (!description.fits && !this.idLeftOutSaid) {
        this.idLeftOutSaid = true;
        this.warn(
          `The job id ${description.why}: the status leaves it out, so a re-run cannot resume from the status.`,
        );
      }
      text = description.text;
    }
    await this.status.write(sha, state, text, target, signal, this.warn);
  }

  private finalStatus(outcome: Outcome, cancelled: boolean, signal: AbortSignal): Promise<void> {
    const { job, failure, timedOut, confirmed } = outcome;
    // A job the service did not confirm to this run is not named: a re-run must send it again.
    const jobId = confirmed ? outcome.jobId : undefined;
    if (!jobId) {
      const word = cancelled ? 'Cancelled before any job' : 'Stopped before any job';
      return this.writeStatus('error', word, undefined, this.runUrl, signal);
    }
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

  /**
   * The login the token acts as, asked once (again after a fault). A fault is marked as the
   * identity query's, so that whatever needed it says that this query failed.
   */
  private ownLogin(signal: AbortSignal): Promise<string> {
    if (!this.identity) {
      const asking = this.forRepo()
        .viewerLogin(signal)
        .catch((error: unknown) => {
          throw identityFault(error);
        });
      this.identity = asking;
      asking.catch(() => {
        if (this.identity === asking) this.identity = undefined;
      });
    }
    return this.identity;
  }

  /** A client for `token` at `apiUrl` (the run's GitHub unless told), made once. */
  private api(token: string, apiUrl = this.deps.run.apiUrl): GitHubApi {
    const key = `${apiUrl}\n${token}`;
    let api = this.apis.get(key);
    if (!api) this.apis.set(key, (api = this.deps.api(token, apiUrl)));
    return api;
  }

  private forRepo(): GitHubApi {
    return this.api(this.request.githubToken);
  }

  /**
   * The docs pull request the `prLink` output carries, and the client that may reach it: on this
   * run's GitHub with `docsToken` (else `githubToken`); on github.com from another GitHub only
   * with a docsToken the workflow gave, at github.com's own API. `githubToken` never leaves the
   * run's GitHub. `why`, when set, is what to tell about a pull request that is not reached.
   */
  private docsReach(
    prLink: string | null | undefined,
  ): { pr: PullRequestRef; home: boolean; api: GitHubApi } | { none: 'link' | 'other'; why?: string } {
    const { run } = this.deps;
    const gitHubCom = this.deps.gitHubCom ?? GITHUB_COM;
    const found = docsPullRequest(prLink, run.serverUrl, gitHubCom.serverUrl);
    if (!found) return { none: 'link' };
    const { pr, home } = found;
    if (home) return { pr, home, api: this.api(this.request.docsToken || this.request.githubToken) };
    if (!this.request.docsTokenGiven) {
      return {
        none: 'other',
        why: `on ${gitHubCom.serverUrl} (${pr.owner}/${pr.repo}#${pr.number}), where githubToken (the token for ${run.serverUrl}) is never sent and no docsToken was given`,
      };
    }
    return { pr, home, api: this.api(this.request.docsToken, gitHubCom.apiUrl) };
  }

  /**
   * The run's own pull request or issue, as findThread tells it: asked once (again after a fault).
   * A push's is asked of GitHub, with githubToken (or the docsToken that stands in for it); a run
   * with neither has no thread to ask about.
   */
  private runThread(signal: AbortSignal): Promise<{ thread?: Thread; none?: string }> {
    if (!this.ownThread) {
      const { githubToken, docsToken, docsTokenGiven } = this.request;
      const token = githubToken || (docsTokenGiven ? '' : docsToken);
      const looking =
        token || this.deps.run.eventName !== 'push'
          ? findThread(this.api(token), this.deps.run, signal)
          : Promise.resolve({
              none: 'no token for this repository to ask which pull request the push came from',
            });
      this.ownThread = looking;
      looking.catch(() => {
        if (this.ownThread === looking) this.ownThread = undefined;
      });
    }
    return this.ownThread;
  }

  /** The kept comment, for writing: none is one notice that says why, a fault a warning. */
  private async keptComment(signal: AbortSignal): Promise<KeptComment | undefined> {
    try {
      const found = await this.keptCommentOrThrow(signal);
      if ('none' in found) {
        if (!this.noneSaid) this.deps.log.notice(`No comment posted: ${found.none}.`);
        this.noneSaid = true;
        return undefined;
      }
      return found.comment;
    } catch (error) {
      const { owner, repo } = this.deps.run.repo;
      this.warn(
        describeGitHubFault(error, {
          what: 'find the pull request the pushed commit came from',
          token: 'githubToken',
          permission: 'contents: read and pull-requests: read',
          repo: `${owner}/${repo}`,
        }),
      );
      return undefined;
    }
  }

  /** Where the kept comment is (the thread of the event), looked up once; a passing fault asks again. */
  private keptCommentOrThrow(signal: AbortSignal): Promise<{ comment: KeptComment } | { none: string }> {
    if (!this.thread) {
      const looking = this.findKeptComment(signal);
      this.thread = looking;
      looking.catch((error: unknown) => {
        if (this.thread === looking && !isFinalFault(error)) this.thread = undefined;
      });
    }
    return this.thread;
  }

  private async findKeptComment(signal: AbortSignal): Promise<{ comment: KeptComment } | { none: string }> {
    const { run } = this.deps;
    if (!eventHasThread(run.eventName)) {
      return { none: `a ${run.eventName || 'local'} run has no pull request or issue` };
    }
    const found = await this.runThread(signal);
    if (!found.thread) return { none: found.none ?? 'the event names no pull request or issue' };
    return {
      comment: new KeptComment(this.forRepo(), found.thread, this.marker, this.warn, (s) => this.ownLogin(s)),
    };
  }

  /**
   * A read tried again after a passing fault (5xx, the network, GitHub's timeout): reads are safe
   * to repeat, and one 502 must not decide which way a thread goes.
   */
  private async retrying<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await read();
      } catch (error) {
        const wait = READ_RETRY_WAITS_MS[tries];
        if (wait === undefined || signal.aborted || !isPassing(error)) throw error;
        const status = (error as { status?: unknown }).status;
        const why = typeof status === 'number' ? `GitHub answered ${status}` : describeThrown(error);
        this.deps.log.info(
          `A read from GitHub met a passing fault (${why}); trying again in ${formatDuration(wait)}.`,
        );
        await this.deps.clock.sleep(wait, signal);
      }
    }
  }

  /** The step's error when what a thread remembers cannot be read. */
  private unreadable(error: unknown): ActionFailure {
    if (error instanceof ActionFailure) return error;
    const { owner, repo } = this.deps.run.repo;
    const op: GitHubOperation = {
      what: 'read what earlier runs of this thread left on GitHub (the kept comment, the commit statuses)',
      token: 'githubToken',
      permission: 'pull-requests: read, issues: read and statuses: read',
      repo: `${owner}/${repo}`,
      fails: true,
    };
    return new ThreadUnreadable(
      `${describeGitHubFault(error, op)} Nothing was sent to the service, so the thread's job is not replaced by a second one; re-run when GitHub answers.`,
    );
  }

  /**
   * Labels, reviewers and auto-merge on the docs pull request, once the job completed with one.
   * Only on the link the `prLink` output carries, only on a pull request that is not the one this
   * run is about (the service may name any), and, on another GitHub, only with a docsToken given
   * for it. Each way it is not done is one line, with nothing written.
   */
  private async writeOnDocs(job: AgentJob | undefined, failure: string | undefined, signal: AbortSignal) {
    const { request } = this;
    const { run, log } = this.deps;
    const route = request.labels.length + request.reviewers.length > 0;
    const merge = request.autoMerge;
    if (!route && !merge) return;
    if (failure || job?.status !== 'completed') return;
    const what = route
      ? merge
        ? 'Labels, reviewers and auto-merge not set'
        : 'Labels and reviewers not set'
      : 'Auto-merge not enabled';
    if (!job.prLink) {
      log.info(`${what}: the job changed no files, so it has no docs pull request.`);
      return;
    }
    const reach = this.docsReach(job.prLink);
    if ('none' in reach) {
      if (reach.why)
        this.warn(`${what}: the docs pull request is ${reach.why}; pass a token for it as docsToken.`);
      else {
        const gitHubCom = this.deps.gitHubCom ?? GITHUB_COM;
        const servers =
          gitHubCom.serverUrl === run.serverUrl
            ? run.serverUrl
            : `${run.serverUrl} or ${gitHubCom.serverUrl}`;
        log.notice(`${what}: ${printableUrl(job.prLink)} is not a pull request on ${servers}.`);
      }
      return;
    }
    const { pr, api, home } = reach;
    const where = `${pr.owner}/${pr.repo}#${pr.number}`;
    if (home && eventHasThread(run.eventName)) {
      let own: Thread | undefined;
      try {
        own = (await this.runThread(signal)).thread;
      } catch (error) {
        this.warn(
          `${what}: could not tell whether ${where} is the pull request this run is about (${describeThrown(error)}).`,
        );
        return;
      }
      if (own && samePullRequest(own, pr)) {
        this.warn(
          `${what}: the service named ${where}, the ${own.pull ? 'pull request' : 'issue'} this run is about, as its docs pull request; nothing is written on it.`,
        );
        return;
      }
    }
    if (route) await routeDocsPullRequest(api, pr, request, this.warn, signal);
    if (merge) await enableAutoMerge(api, pr, merge, this.warn, signal);
  }

  /**
   * GitHub work the create waits for (context, what earlier runs left, a role, a docs PR): bounded
   * by `ms`, ended at once by a cancellation (nothing has been sent yet, so the step ends), and
   * any other fault is `fallback`'s, which warns (or throws) and says what the run goes on with.
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

/** A fault worth one more try: GitHub's 5xx, 408, or no answer at all (no status). */
function isPassing(error: unknown): boolean {
  const failure = error as { status?: unknown; name?: unknown } | undefined;
  if (failure?.name === 'ZodError' || error instanceof ActionFailure) return false;
  const status = failure?.status;
  if (typeof status !== 'number')
    return !(failure?.name === 'AbortError' || failure?.name === 'TimeoutError');
  return status >= 500 || status === 408;
}

/** Whether `work` settles before `signal` aborts. */
function settledWithin(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settled = () => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    };
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(settled, settled);
  });
}
