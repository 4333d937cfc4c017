// What decide reads of GitHub before anything is sent: who asks (the actor's access), what the
// thread remembers (the kept comment's note, this step's own statuses, the branch's job up its
// history), what changed (the files for `paths`, the context for the prompt), and the docs pull
// request's state; and the one write a decision makes, a skip's status. Each read is bounded by
// its budget and ended at once by a cancellation.
import { threadOfDocsPull } from './docs-note.js';
import { ActionFailure } from '../service/errors.js';
import type { Access } from '../core/ports.js';
import { describeThrown } from '../core/log.js';
import type { Changed, DecideReads, DocsPull, Memory, Moment, StatusNote } from '../core/ports.js';
import { pushedOnto } from './commits.js';
import { jobsAtWork } from './in-flight.js';
import { carriesDocsLabel, pullPage } from '../core/pull-request.js';
import { renderContext } from './context.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { changedFiles, eventHasContext, gatherContext, gatherSince } from './gather.js';
import { readNote } from './note.js';
import { threadComments } from './requests.js';
import { accessOn, docsAsks } from './docs-asks.js';
import { moment } from './moment.js';
import type { GitHubSession } from './session.js';
import { eventHasThread, isPushLookupFault, mergedAlongside } from './target.js';

/** How long gathering the event's context (or its files) may hold up the create. */
const CONTEXT_BUDGET_MS = 30_000;
/** How long the actor's access may take. */
const ACCESS_BUDGET_MS = 30_000;
/** What a thread reads before the create (the note, statuses up the branch, the docs PR), retries included. */
const RECALL_BUDGET_MS = 60_000;
/** How far up the branch a push looks for the commit that names the branch's job. */
const BRANCH_WALK = 20;

export function decideReads(session: GitHubSession): DecideReads {
  const { run, warn } = session;
  const { owner, repo } = run.repo;
  return {
    /**
     * The actor's access to the repository (its base permission and its role's name), for the
     * gate; `undefined`, with a warning, when GitHub does not tell: the actor is then refused.
     */
    accessOf(actor, cancellation) {
      return session.beforeTheCreate(
        ACCESS_BUDGET_MS,
        cancellation,
        (signal): Promise<Access | undefined> =>
          session.forRepo().collaboratorAccess({ owner, repo, username: actor }, signal),
        (error) => {
          warn(
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
    },

    recall: (strict, cancellation) => recall(session, strict, cancellation),

    threadComments: (cancellation, above) => threadComments(session, cancellation, above),

    docsOf: (signal) => threadOfDocsPull(session, signal),

    docsAsks: (link, cancellation) =>
      session.beforeTheCreate(
        ACCESS_BUDGET_MS,
        cancellation,
        async (signal) => {
          const { thread } = await session.runThread(signal);
          return thread ? docsAsks(session, link, thread.number, signal) : undefined;
        },
        () => undefined,
      ),

    accessOn: (link, actor, cancellation) =>
      session.beforeTheCreate(
        ACCESS_BUDGET_MS,
        cancellation,
        (signal) => accessOn(session, link, actor, signal),
        () => undefined,
      ),

    /**
     * The docs pull request a follow-up would go to, read with `docsToken` (retried on passing
     * faults). A pull request on this GitHub that cannot be read ends the step: a follow-up never
     * goes into a pull request the action cannot see, and a new job beside it would fork the
     * thread. One on github.com from another GitHub is read only with a docsToken the workflow
     * gave: without one it is, like a link elsewhere, a pull request whose state cannot be read.
     */
    async docsPull(prLink, cancellation) {
      const reach = session.docsReach(prLink);
      if ('none' in reach) return { state: 'elsewhere', ...(reach.why ? { why: reach.why } : {}) };
      const { pr, api } = reach;
      const where = `${pr.owner}/${pr.repo}`;
      return session.beforeTheCreate(
        RECALL_BUDGET_MS,
        cancellation,
        async (signal): Promise<DocsPull> => {
          const pull = await session.retrying(
            () => api.getPull({ owner: pr.owner, repo: pr.repo, pull_number: pr.number }, signal),
            signal,
          );
          const state = pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed';
          return { state, number: pr.number, repo: where };
        },
        (error) => {
          throw new ActionFailure(
            `${describeGitHubFault(error, {
              what: `read the docs pull request ${where}#${pr.number}, which the thread's job opened`,
              token: 'docsToken',
              permission: 'pull-requests: read',
              repo: where,
              fails: true,
            })} Nothing was sent: whether the thread's job is followed up or replaced depends on that pull request. Give docsToken pull-requests: read on ${where}, then re-run.`,
          );
        },
      );
    },

    /**
     * What the triggering event changed, as a section to append to the prompt (at most `limit`
     * characters), or `''`: events that change nothing add nothing and make no request. With
     * `since` (the head a thread's job last saw), what changed since.
     */
    async context(since, limit, cancellation) {
      const { log } = session;
      // A request on a pull request (a review comment's too) tells what changed since the job looked.
      const request = since !== undefined && run.event.kind === 'comment';
      if (!eventHasContext(run.event) && !request) {
        log.info(`No context appended: a ${run.event.name || 'local'} run changes nothing to describe.`);
        return '';
      }
      return session.beforeTheCreate(
        CONTEXT_BUDGET_MS,
        cancellation,
        async (signal) => {
          // A thread's merge is told up to the merged pull request's own head.
          const head = since ? await session.jobHead(signal) : (await session.runCommits(signal)).head;
          if (since && head && head !== since) {
            const context = await gatherSince(session.readsOnce(), run, since, head, warn, signal);
            const text = context ? renderContext(context, limit) : '';
            if (text)
              log.info(
                `Appended ${text.length} characters of context: what changed since ${since.slice(0, 12)}.`,
              );
            return text;
          }
          const context = await gatherContext(session.readsOnce(), run, warn, signal);
          const text = context ? renderContext(context, limit) : '';
          log.info(
            text
              ? `Appended ${text.length} characters of context from the ${run.event.name} event (${context?.commits.length ?? 0} commits, ${context?.files.length ?? 0} files).`
              : context
                ? 'No context appended: contextLimit leaves no room for even its header.'
                : `No context appended: the ${run.event.name} event changed nothing to describe.`,
          );
          return text;
        },
        (error) => {
          warn(`Could not gather the event's context: ${describeThrown(error)}. The job is sent without it.`);
          return '';
        },
      );
    },

    /** The files the event changed, for `paths`; a list GitHub cannot give says why. */
    changedFiles(since, cancellation) {
      return session.beforeTheCreate(
        CONTEXT_BUDGET_MS,
        cancellation,
        async (signal): Promise<Changed> => {
          // Without a last head, a merge's files are the push's own, as its context lists them.
          const until = since ? await session.jobHead(signal) : undefined;
          return session.retrying(() => changedFiles(session.readsOnce(), run, since, signal, until), signal);
        },
        (error): Changed => ({
          unreadable: describeGitHubFault(error, {
            what: 'read which files the change touched',
            token: 'githubToken',
            permission: 'contents: read and pull-requests: read',
            repo: `${owner}/${repo}`,
          }),
        }),
      );
    },

    /**
     * Where a push-like run stands on its pull request: a push is the merge when its commit is the
     * pull request's merge commit, a branch's when no pull request contains it; a push or a pull
     * request event is overtaken when the pull request's head is already another commit. GitHub
     * not telling is `unread` (a warning): nothing is held back on a guess.
     */
    moment(cancellation) {
      return session.beforeTheCreate(
        RECALL_BUDGET_MS,
        cancellation,
        (signal) => moment(session, signal),
        (error): Moment => {
          warn(
            `${describeGitHubFault(error, {
              what: 'read where the pull request’s head stands',
              token: 'githubToken',
              permission: 'pull-requests: read',
              repo: `${owner}/${repo}`,
            })} The run goes on as if no newer push had come.`,
          );
          return { unread: true };
        },
      );
    },

    /**
     * The other pull requests this push merged (a merge queue's group): their merge commits, each
     * a thread to tell. A fault is a warning: those threads go untold, this one goes on.
     */
    async mergedAlongside(cancellation) {
      try {
        const { thread } = await session.retrying(() => session.runThread(cancellation), cancellation);
        return await session.retrying(
          () => mergedAlongside(session.forRepo(), run, thread, cancellation),
          cancellation,
        );
      } catch (error) {
        if (cancellation.aborted) return [];
        warn(
          `${describeGitHubFault(error, {
            what: `list the pull requests merged into ${owner}/${repo} by this push`,
            token: 'githubToken',
            permission: 'pull-requests: read',
            repo: `${owner}/${repo}`,
          })} Other pull requests this push merged, if any, are not told of their merge by this run.`,
        );
        return [];
      }
    },
  };
}

/**
 * What earlier runs left on GitHub for this step: the note in its comment on the thread, and,
 * with `status`, its own status on this run's commit (for a re-run) and the branch's job (its own
 * status on the newest commit up from the push's `before` that names one). On a thread (`strict`)
 * a read that still fails after its retries ends the step: nothing has been sent, and reading
 * "nothing" would start a second job. Otherwise faults are warnings and read as nothing.
 */
function recall(session: GitHubSession, strict: boolean, cancellation: AbortSignal): Promise<Memory> {
  const { run, request, status } = session;
  const { owner, repo } = run.repo;
  const memory: Memory = {};
  return session.beforeTheCreate(
    RECALL_BUDGET_MS,
    cancellation,
    async (signal) => {
      if (request.comment && eventHasThread(run.event)) {
        const found = await session.retrying(() => session.keptComment(signal), signal);
        const comment = 'comment' in found ? found.comment : undefined;
        const body = comment ? await session.retrying(() => comment.body(signal), signal) : undefined;
        memory.note = session.trusted(body ? readNote(body) : undefined, 'the kept comment');
      }
      if (request.thread && eventHasThread(run.event)) {
        // The threads at work first, the labels afresh after: the report labels the docs PR before
        // it takes its thread's label off, so no moment between the two escapes both reads.
        const { thread } = await session.retrying(() => session.runThread(signal), signal);
        const atWork = thread?.opened?.docsLabel ? undefined : await threadsAtWork(session, memory, signal);
        const facts = await opened(session, memory, signal);
        if (facts) memory.opened = facts;
        if (atWork && !facts?.docsLabel) memory.atWork = atWork;
      }
      if (status) {
        const { sha } = await session.runCommits(signal);
        if (run.runAttempt > 1 && sha) {
          const own = await session.retrying(() => status.read(sha, signal), signal);
          memory.status = session.trusted(own, 'the commit status');
        }
        const before = pushedOnto(run);
        if (request.thread && before && !memory.note)
          memory.branch = await branchJob(session, before, signal);
      }
      return memory;
    },
    (error) => {
      if (strict) throw unreadable(session, error);
      session.warn(
        faultOf(error).identity
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
 * How the run's pull request came to be (a thread's docs PR, a bot's), as far as GitHub tells:
 * an event's payload has its labels as they were when it came, so a pull request that is no
 * thread yet (no note) has them read afresh — its thread's report may have labelled it since.
 */
async function opened(
  session: GitHubSession,
  memory: Memory,
  signal: AbortSignal,
): Promise<Memory['opened']> {
  const { thread } = await session.retrying(() => session.runThread(signal), signal);
  const facts = thread?.opened;
  if (!thread?.pull || facts?.docsLabel || memory.note || session.run.event.kind === 'push') return facts;
  const { owner, repo, number } = thread;
  const pull = await session.retrying(
    () => session.readsOnce().getPull({ owner, repo, pull_number: number }, signal),
    signal,
  );
  const docsLabel = carriesDocsLabel(pull.labels);
  return docsLabel || facts ? { ...facts, docsLabel } : undefined;
}

/**
 * On a pull request of this repository that is no thread yet (its first run, on its own event):
 * the jobs of the threads at work, one of which may have opened it. A fault reads as none: a
 * permission GitHub refuses (listing issues needs `issues: read`) is said once as information,
 * any other fault as a warning.
 */
async function threadsAtWork(
  session: GitHubSession,
  memory: Memory,
  signal: AbortSignal,
): Promise<Memory['atWork']> {
  const { run } = session;
  if (memory.note || run.event.kind !== 'pull-request' || run.event.pull?.fork !== undefined)
    return undefined;
  const { thread } = await session.retrying(() => session.runThread(signal), signal);
  if (!thread?.pull) return undefined;
  try {
    const jobs = await jobsAtWork(session, thread, signal);
    const self = pullPage(run.serverUrl, thread);
    return jobs.length > 0 ? { jobs, self } : undefined;
  } catch (error) {
    const fault = faultOf(error);
    const said = describeGitHubFault(error, {
      what: 'list the threads whose job works',
      token: 'githubToken',
      permission: 'issues: read',
      repo: `${thread.owner}/${thread.repo}`,
    });
    const then =
      'Whether this pull request is the docs pull request of one of them is told by its label only.';
    if (fault.status === 403 || fault.notFound) session.log.info(`${said} ${then}`);
    else session.warn(`${said} ${then}`);
    return undefined;
  }
}

/** A status that leaves its job at work: going on, or marked overdue (not an end: it may be at work still). */
const goesOn = (own: StatusNote): boolean => own.goesOn === true || own.overdue === true;

/** What a branch's status records of its job's pass: at work still, its docs PR, the one it supersedes. */
const recorded = (own: StatusNote) => ({
  ...(goesOn(own) ? { goesOn: true as const } : {}),
  ...(own.docsPr ? { docsPr: own.docsPr } : {}),
  ...(own.supersedes ? { supersedes: own.supersedes } : {}),
});

/**
 * The branch's job: this step's own status on `before`, else on the newest commit up the branch
 * that has one naming a job (cancelled runs leave their commits without one); the commit it was
 * found on is the head that job last saw, and the count the status holds, what that job spent.
 */
async function branchJob(
  session: GitHubSession,
  before: string,
  signal: AbortSignal,
): Promise<Memory['branch']> {
  const named = async (sha: string) =>
    session.trusted(
      await session.retrying(async () => session.status?.read(sha, signal), signal),
      'the commit status',
    );
  let found: NonNullable<Memory['branch']> | undefined;
  const take = async (sha: string): Promise<boolean> => {
    const own = await named(sha);
    if (!own?.job) return false;
    if (found) {
      // Only the newest commit a run told the job about is what it last saw.
      if (own.job !== found.job) return true;
      if (own.held) return false;
      // The pass's own status: its commit and the run that left it.
      found = { ...found, since: sha, run: own.run, ...recorded(own) };
      return true;
    }
    found = {
      job: own.job,
      run: own.run,
      since: sha,
      ...(own.uses !== undefined ? { uses: own.uses } : {}),
      ...recorded(own),
    };
    // A skip names the job but told it nothing: what the job saw is further back.
    return !own.held;
  };
  if (await take(before)) return found;
  const { owner, repo } = session.run.repo;
  const history = await session
    .retrying(
      () => session.forRepo().listCommits({ owner, repo, sha: before, per_page: BRANCH_WALK }, signal),
      signal,
    )
    .catch((error: unknown) => {
      // A `before` GitHub no longer has (a forced push): no branch to walk up.
      if (faultOf(error).gone) return [];
      throw error;
    });
  for (const sha of history.filter((sha) => sha !== before)) if (await take(sha)) return found;
  return found;
}

/**
 * The step's error when what a thread remembers cannot be read: reading it as "nothing" would start
 * a second job beside the first.
 */
function unreadable(session: GitHubSession, error: unknown): ActionFailure {
  if (error instanceof ActionFailure) return error;
  const { owner, repo } = session.run.repo;
  // A push's thread is the pull request its commit came from: unknown, so is whether it merged.
  const lookUp = isPushLookupFault(error);
  const why = describeGitHubFault(error, {
    what: lookUp
      ? 'find the pull request the pushed commit came from, so neither its thread nor whether this push is its merge is known'
      : 'read what earlier runs of this thread left on GitHub (the kept comment, the commit statuses)',
    token: 'githubToken',
    permission: lookUp
      ? 'contents: read and pull-requests: read'
      : 'pull-requests: read, issues: read and statuses: read',
    repo: `${owner}/${repo}`,
    fails: true,
  });
  const again = faultOf(error).final ? 're-run once that is put right' : 're-run when GitHub answers';
  return new ActionFailure(
    `${why} Nothing was sent to the service, so the thread's job is not replaced by a second one; ${again}.`,
  );
}
