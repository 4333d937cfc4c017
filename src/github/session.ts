// The GitHub side of one run, made once: the clients (one a token and host, each token only to its
// own host), the login the token acts as, the look-ups every step shares (the run's commits, its
// pull request or issue, the kept comment), retries of reads, and the time budgets. The steps'
// modules (reads, first writes, last writes) work over it and keep nothing of their own: what one
// step leaves for another is a value the core hands along.
import type { Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { isJobId } from '../core/job.js';
import type { Log } from '../core/log.js';
import type { ReportRequest } from '../core/ports.js';
import { docsPullRequest, GITHUB_COM, type PullRequestRef } from '../core/pull-request.js';
import { quote } from '../core/untrusted.js';
import type { GitHubApi, RunContext } from './client.js';
import { commentMarker, KeptComment } from './comment.js';
import { askedOnce } from './asked-once.js';
import { CommentPages } from './comment-pages.js';
import { runCommits, type RunCommits } from './commits.js';
import { faultOf, identityFault } from './errors.js';
import { readOnce } from './read-once.js';
import { CommitStatus, statusContext } from './status.js';
import { eventHasThread, findThread, type Thread } from './target.js';

/** What the GitHub side works with; the chunk's entry gives the real ones, tests their own. */
export interface SessionDeps {
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
  /**
   * Another thread than the event's, whose kept comment `marker` names (a report run writing the
   * end of a job that thread was waiting for): the session's thread and comment are these.
   */
  pinned?: { thread: Thread; marker: string };
}

/** After a cancellation the runner kills the process 7.5 s on; the action exits within 2 s. */
const CANCELLED_BUDGET_MS = 1_200;
/** Waits between tries of a read that met a passing fault: reads are safe to repeat. */
const READ_RETRY_WAITS_MS = [1000, 2000, 4000];

/** Where the kept comment is: the comment to write, or why there is none. */
export type KeptLookUp = { comment: KeptComment } | { none: string };

/** The docs pull request a link names, and the client that may reach it; or why it is not reached. */
export type DocsReach =
  { pr: PullRequestRef; home: boolean; api: GitHubApi } | { none: 'link' | 'other'; why?: string };

export class GitHubSession {
  readonly run: RunContext;
  readonly log: Log;
  readonly clock: Clock;
  readonly gitHubCom: { serverUrl: string; apiUrl: string };
  /** The hidden line that names this step's kept comment. */
  readonly marker: string;
  /** The workflow run: where a status or a comment links when nothing better is known. */
  readonly runUrl: string;
  /** This step's commit status, when `status` asked for one. */
  readonly status?: CommitStatus;
  private apis = new Map<string, GitHubApi>();
  /**
   * What the run asks once (`askedOnce`): the login the token acts as (only what it wrote is the
   * action's own), the run's own thread, and where its kept comment is.
   */
  private asked = new Map<'identity' | 'thread' | 'kept', Promise<unknown>>();
  private commits?: Promise<RunCommits>;
  private pages = new Map<string, CommentPages>();

  constructor(
    readonly request: ReportRequest,
    private readonly deps: SessionDeps,
  ) {
    const { run } = deps;
    this.run = run;
    this.log = deps.log;
    this.clock = deps.clock;
    this.gitHubCom = deps.gitHubCom ?? GITHUB_COM;
    this.marker = deps.pinned?.marker ?? request.standIn?.marker ?? commentMarker(run, request);
    this.runUrl = `${run.serverUrl}/${run.repo.owner}/${run.repo.repo}/actions/runs/${run.runId}`;
    this.statusContext = request.standIn?.statusContext ?? statusContext(run, request);
    if (request.status) {
      this.status = new CommitStatus(
        () => this.forRepo(),
        (signal) => this.ownLogin(signal),
        run,
        this.statusContext,
        this.runUrl,
        this.say,
      );
    }
  }

  /**
   * This step's own status context, whether or not this run writes a status: a report run of the
   * step ends the statuses the step's runs left, and those are named alike.
   */
  readonly statusContext: string;

  readonly warn = (message: string): void => this.log.warning(message);
  /** What the run wrote on GitHub, said in its log as it is written. */
  readonly say = (line: string): void => this.log.info(line);

  /** A client for `token` at `apiUrl` (the run's GitHub unless told), made once. */
  api(token: string, apiUrl = this.run.apiUrl): GitHubApi {
    const key = `${apiUrl}\n${token}`;
    let api = this.apis.get(key);
    if (!api) this.apis.set(key, (api = this.deps.api(token, apiUrl)));
    return api;
  }

  /** The thread a report or lane run's session is pinned to (`pinnedTo`); none on a run's own. */
  get pinnedThread(): Thread | undefined {
    return this.deps.pinned?.thread;
  }

  /**
   * A session for another thread of this repository (`pinned`) and its kept comment, on a thread
   * with no status of its own (a waiting job's record names the status to end); it shares this
   * session's clients and identity, which this one closes.
   */
  pinnedTo(pinned: { thread: Thread; marker: string }): GitHubSession {
    const session = new GitHubSession(
      { ...this.request, thread: true, comment: true, status: false },
      { ...this.deps, pinned },
    );
    session.apis = this.apis;
    const identity = this.asked.get('identity');
    if (identity) session.asked.set('identity', identity);
    return session;
  }

  /** The run's repository, with githubToken. */
  forRepo(): GitHubApi {
    return this.api(this.request.githubToken);
  }

  private once?: GitHubApi;
  /**
   * `forRepo`, for what the decision reads before the create: a comparison, a pull request, its
   * files, asked once however many of its reads need them (paths, the context, the moment).
   */
  readsOnce(): GitHubApi {
    return (this.once ??= readOnce(this.forRepo()));
  }

  /**
   * The login the token acts as, asked once (again after a fault). A fault is marked as the
   * identity query's, so that whatever needed it says that this query failed.
   */
  /**
   * The login of the identity that writes on a docs pull request through `api` (its note, its
   * answers): the run's own token's (asked once) on this GitHub (`home`) unless a docsToken was
   * given, else the docsToken's, asked of GitHub. Only what it wrote there is the action's own.
   */
  docsLogin(api: GitHubApi, home: boolean, signal: AbortSignal): Promise<string> {
    return home && !this.request.docsTokenGiven ? this.ownLogin(signal) : api.viewerLogin(signal);
  }

  ownLogin(signal: AbortSignal): Promise<string> {
    return askedOnce(this.asked, 'identity', () =>
      this.forRepo()
        .viewerLogin(signal)
        .catch((error: unknown) => {
          throw identityFault(error);
        }),
    );
  }

  /** The commits the run is about, asked once. */
  runCommits(signal: AbortSignal): Promise<RunCommits> {
    return (this.commits ??= runCommits(this.readsOnce(), this.run, this.warn, signal));
  }

  /**
   * The head the thread's job sees this run, as its note records it: on the push of a pull
   * request's merge commit, the merged pull request's own head (what the merge told it), else the
   * run's head.
   */
  async jobHead(signal: AbortSignal): Promise<string | undefined> {
    const { head } = await this.runCommits(signal);
    if (!this.request.thread || this.run.event.kind !== 'push') return head;
    const { thread } = await this.retrying(() => this.runThread(signal), signal);
    return thread?.pushed?.merge ? thread.pushed.head : head;
  }

  /**
   * The run's own pull request or issue, as findThread tells it: asked once (again after a fault).
   * A push's is asked of GitHub, with githubToken (or the docsToken that stands in for it); a run
   * with neither has no thread to ask about.
   */
  runThread(signal: AbortSignal): Promise<{ thread?: Thread; none?: string }> {
    if (this.deps.pinned) return Promise.resolve({ thread: this.deps.pinned.thread });
    const { githubToken, docsToken, docsTokenGiven } = this.request;
    const token = githubToken || (docsTokenGiven ? '' : docsToken);
    return askedOnce(this.asked, 'thread', () =>
      token || this.run.event.kind !== 'push'
        ? findThread(this.api(token), this.run, signal)
        : Promise.resolve({
            none: 'no token for this repository to ask which pull request the push came from',
          }),
    );
  }

  /**
   * A thread's comments as this run reads them (with githubToken): each page asked once, whichever
   * reader needs it first — the kept comment's look-up, the requests queued, a docs PR's note.
   */
  commentPages(thread: Thread): CommentPages {
    const key = `${thread.owner}/${thread.repo}#${thread.number}`.toLowerCase();
    let pages = this.pages.get(key);
    if (!pages) this.pages.set(key, (pages = new CommentPages(this.forRepo(), thread)));
    return pages;
  }

  /** Where the kept comment is (the thread of the event), looked up once; a passing fault asks again. */
  keptComment(signal: AbortSignal): Promise<KeptLookUp> {
    // A final fault (a token that may not read the thread) is the answer for the whole run.
    return askedOnce(
      this.asked,
      'kept',
      () => this.findKeptComment(signal),
      (error) => faultOf(error).final,
    );
  }

  private async findKeptComment(signal: AbortSignal): Promise<KeptLookUp> {
    const { run } = this;
    if (!this.deps.pinned && !eventHasThread(run.event)) {
      return { none: `a ${run.event.name || 'local'} run has no pull request or issue` };
    }
    const found = await this.runThread(signal);
    if (!found.thread) return { none: found.none ?? 'the event names no pull request or issue' };
    return {
      comment: new KeptComment(
        this.forRepo(),
        found.thread,
        this.marker,
        this.warn,
        (s) => this.ownLogin(s),
        this.say,
        this.commentPages(found.thread),
      ),
    };
  }

  /**
   * The docs pull request the `prLink` output carries, and the client that may reach it: on this
   * run's GitHub with `docsToken` (else `githubToken`); on github.com from another GitHub only
   * with a docsToken the workflow gave, at github.com's own API. `githubToken` never leaves the
   * run's GitHub. `why`, when set, is what to tell about a pull request that is not reached.
   */
  docsReach(prLink: string | null | undefined): DocsReach {
    const { run, gitHubCom, request } = this;
    const found = docsPullRequest(prLink, run.serverUrl, gitHubCom.serverUrl);
    if (!found) return { none: 'link' };
    const { pr, home } = found;
    if (home) return { pr, home, api: this.api(request.docsToken || request.githubToken) };
    if (!request.docsTokenGiven) {
      return {
        none: 'other',
        why: `on ${gitHubCom.serverUrl} (${pr.owner}/${pr.repo}#${pr.number}), where githubToken (the token for ${run.serverUrl}) is never sent and no docsToken was given`,
      };
    }
    return { pr, home, api: this.api(request.docsToken, gitHubCom.apiUrl) };
  }

  /**
   * Ends every client's connection, once the run writes nothing more; a client that fails to close
   * changes nothing of the run's.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.apis.values()].map((api) => api.close()));
  }

  /**
   * A read tried again after a passing fault (5xx, the network, GitHub's timeout): reads are safe
   * to repeat, and one 502 must not decide which way a thread goes.
   */
  async retrying<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await read();
      } catch (error) {
        const wait = READ_RETRY_WAITS_MS[tries];
        const fault = faultOf(error);
        if (wait === undefined || signal.aborted || !fault.passing) throw error;
        this.log.info(
          `A read from GitHub met a passing fault (${fault.said}); trying again in ${formatDuration(wait)}.`,
        );
        await this.clock.sleep(wait, signal);
      }
    }
  }

  /**
   * A record read back from GitHub names a job only when its id obeys the service's rules: an id
   * such as `..` would otherwise become a dot segment of the next request's path.
   */
  trusted<T extends { job?: string }>(record: T | undefined, where: string): T | undefined {
    if (record?.job === undefined || isJobId(record.job)) return record;
    this.warn(
      `Ignored the job named in ${where}: ${quote(record.job, 100)} is not a job id the service gives.`,
    );
    return undefined;
  }

  /**
   * GitHub work the create waits for (context, what earlier runs left, a role, a docs PR): bounded
   * by `ms`, ended at once by a cancellation (nothing has been sent yet, so the step ends), and
   * any other fault is `fallback`'s, which warns (or throws) and says what the run goes on with.
   */
  async beforeTheCreate<T>(
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
  budget(ms: number, cancellation?: AbortSignal): { signal: AbortSignal; done: () => void } {
    const { clock } = this;
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

/**
 * What `work` gave, once it settles before `signal` aborts (`value` absent when it failed); else
 * `undefined`.
 */
export function within<T>(work: Promise<T>, signal: AbortSignal): Promise<{ value?: T } | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const settled = (value?: T) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value === undefined ? {} : { value });
    };
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(settled, () => settled());
  });
}
