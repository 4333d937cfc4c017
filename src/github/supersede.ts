// The docs pull requests a thread's earlier jobs left open: when the service refuses a follow-up
// outright and a new job takes the thread over, the earlier job's docs pull request is closed,
// with a comment that links its successor, once the new job has one; left open (the comment
// only) when someone other than its opener committed to it. Only a pull request the thread's own
// record holds as that earlier job's docs PR (docs-record.ts) is ever closed: the service's word
// alone may name any pull request. Closed with a docsToken the workflow gave, else with the
// workflow's own token where the docs PR is in the run's own repository (a monorepo). A link
// whose successor is not known yet waits in the thread's note for a later run; on a branch, in
// the status of the job at work (`… superseding owner/repo#N`), for the run that writes its end.
import type { Outcome } from '../core/ports.js';
import { heldDocsPr, holdsDocsPr } from '../core/docs-record.js';
import { isTerminal } from '../core/job.js';
import { outputLink, pullPage, samePullRequest, type PullRequestRef } from '../core/pull-request.js';
import { describeThrown } from '../core/log.js';
import { cell, inert, label, printableUrl } from '../core/untrusted.js';
import type { GitHubApi } from './client.js';
import { MARKER_PREFIX, pullRequestLink } from './comment.js';
import type { Superseded, SupersededFate } from './superseded-words.js';
import { describeGitHubFault, faultOf } from './errors.js';
import type { DocsReach, GitHubSession } from './session.js';
import { pullOfRef } from './status.js';
import { eventHasThread } from './target.js';

/** GitHub lists at most 250 commits of a pull request: a longer one cannot be read whole. */
const LISTED_COMMITS = 250;
/** The committer GitHub names for commits it makes itself (web edits, commits signed for an app). */
const GITHUB_COMMITTER = 'web-flow';

/** What the report writes about the superseded docs pull requests, and what the note keeps waiting. */
export interface SupersededReport {
  /** Each one dealt with or still waiting, for the comment. */
  fates: Superseded[];
  /** What the next note keeps to close later; absent: the note keeps what it had. */
  toClose?: string[];
  /** On a branch: the one (`owner/repo#N`) the status of the job at work names, to close later. */
  carry?: string;
}

/** One superseded docs pull request, and the client that may close it; or why none may. */
type Closer = {
  link: string;
  reach: Extract<DocsReach, { api: GitHubApi }>;
  token: 'docsToken' | 'githubToken';
};

/**
 * Closes (or comments on) the docs pull requests earlier jobs of the thread left: the one this
 * run's refused follow-up went to, where the thread's record holds it as that job's, and those an
 * earlier run left waiting (the note's, a branch's status's, or `waiting` as a report run read
 * them), once the thread's job (this run's, confirmed) has a docs pull request. Never fails: each
 * fault is one warning.
 */
export async function supersede(
  session: GitHubSession,
  outcome: Outcome,
  signal: AbortSignal,
  waiting?: string[],
): Promise<SupersededReport> {
  const { jobId, confirmed, job, memory, replaced } = outcome;
  const { log } = session;
  const named = outputLink(replaced?.prLink);
  const held = replaced && named && holdsDocsPr(memory, replaced.jobId, named);
  const said: Superseded[] = [];
  if (replaced && named && !held) {
    const record = heldDocsPr(memory, replaced.jobId);
    log.info(
      `The service names ${printableUrl(named)} as the docs pull request of agent job ${label(replaced.jobId)}, which the thread's record does not hold as that job's (${record ? `it holds ${printableUrl(record)}` : 'it holds none'}): it is not closed.`,
    );
    said.push({ link: named, fate: 'unrecorded' });
  }
  // Only a run whose job is now the thread's deals with what the thread left: a re-run of an
  // older run is not.
  const leads = jobId !== undefined && confirmed && (memory.note?.run ?? 0) <= session.run.runId;
  const carried = memory.branch?.supersedes && pullOfRef(memory.branch.supersedes);
  const kept =
    waiting ?? memory.note?.superseded ?? (carried ? [pullPage(session.run.serverUrl, carried)] : []);
  const earlier = leads ? kept : [];
  const links = [...new Set([...earlier, ...(held ? [named] : [])])];
  if (links.length === 0) return { fates: said };
  if (!leads) {
    log.info(
      `The earlier docs pull request ${links.map(printableUrl).join(', ')} stays open: ${confirmed ? "this run is a re-run of an older one, and the thread's newer runs deal with it" : 'no new job took the thread over'}.`,
    );
    return { fates: [...said, ...links.map((link) => ({ link, fate: 'open' as const }))] };
  }

  // Which token may close each: one no token may close stays open, whatever the successor.
  const closers: Closer[] = [];
  for (const link of links) {
    const closer = closerOf(session, link);
    if ('link' in closer) closers.push(closer);
    else said.push({ link, fate: closer.fate });
  }
  if (closers.length === 0) return { fates: said, toClose: [] };
  const shown = closers.map((c) => printableUrl(c.link)).join(', ');
  const open = (fate: SupersededFate) => closers.map(({ link }) => ({ link, fate }));

  // A job that failed or was archived is no successor: the thread's next job will be.
  const successor =
    job && job.id === jobId && job.status !== 'failed' && job.status !== 'archived'
      ? outputLink(job.prLink)
      : '';
  if (!successor) {
    // A branch has no note: the status of its job at work names one, for the run that ends it.
    if (!memory.note) return { fates: [...said, ...open('open')], ...onBranch(session, closers, job) };
    log.info(
      `The earlier docs pull request ${shown} stays open while agent job ${label(jobId)} has no docs pull request; the thread's run that finds one closes the earlier one then, or says why it cannot.`,
    );
    return { fates: [...said, ...open('waiting')], toClose: closers.map((c) => c.link) };
  }
  if (!pullRequestLink(successor)) {
    log.info(
      `The earlier docs pull request ${shown} stays open: agent job ${label(jobId)} names ${printableUrl(successor)}, which is not a pull request.`,
    );
    return { fates: [...said, ...open('open')], toClose: [] };
  }
  const reached = session.docsReach(successor);
  // Only a pull request the successor's own opener (the service's account) opened is closed: a
  // link to anyone else's is commented on at most.
  const opener =
    'none' in reached
      ? undefined
      : await session
          .retrying(
            () =>
              reached.api.getPull(
                { owner: reached.pr.owner, repo: reached.pr.repo, pull_number: reached.pr.number },
                signal,
              ),
            signal,
          )
          .then((pull) => pull.opener)
          .catch(() => undefined);
  const next = { link: successor, opener, ...('none' in reached ? {} : { pr: reached.pr }) };

  const fates: Superseded[] = [...said];
  const toClose: string[] = [];
  for (const closer of closers) {
    const fate = await closeOne(session, closer, next, signal);
    if (fate === 'same') continue;
    if (fate.fate === 'unanswered') toClose.push(closer.link);
    fates.push({ link: closer.link, ...fate });
  }
  return { fates, toClose };
}

/**
 * What a branch's thread keeps of the docs pull requests left open while its job has none: the
 * first on the run's own GitHub, named by the status of the job at work (`carry`), while the job
 * works; the rest, and any once the job has ended, are said to be closed by hand.
 */
function onBranch(session: GitHubSession, closers: Closer[], job: Outcome['job']): { carry?: string } {
  const jobId = label(job?.id ?? '');
  const at = job && !isTerminal(job.status) ? closers.find((c) => c.reach.home) : undefined;
  for (const { link } of closers.filter((c) => c !== at))
    session.log.info(
      `The earlier docs pull request ${printableUrl(link)} stays open: agent job ${jobId} ${job && isTerminal(job.status) ? 'ended' : 'is at work'} without a docs pull request, and a branch's thread keeps no list of pull requests to close later. Close it by hand once the thread's job has its own.`,
    );
  if (!at) return {};
  const { pr } = at.reach;
  session.log.info(
    `The earlier docs pull request ${printableUrl(at.link)} stays open while agent job ${jobId} has no docs pull request; the branch's commit status names it, and the run that writes the job's end closes it then, or says why it cannot.`,
  );
  return { carry: `${pr.owner}/${pr.repo}#${pr.number}` };
}

/**
 * The client that may close the docs pull request `link`: the docsToken's, when the workflow gave
 * one; else the workflow's own token's, only in the run's own repository (a monorepo's docs PR).
 * Otherwise the fate it keeps, said in the log.
 */
function closerOf(session: GitHubSession, link: string): Closer | { fate: SupersededFate } {
  const { log, request, run } = session;
  const reach = session.docsReach(link);
  if ('none' in reach) {
    log.info(
      `The earlier docs pull request ${printableUrl(link)} stays open: it is ${reach.why ?? 'not a pull request on this GitHub'}.`,
    );
    return { fate: reach.none === 'other' ? 'no-token' : 'unreachable' };
  }
  if (request.docsTokenGiven) return { link, reach, token: 'docsToken' };
  const { owner, repo } = run.repo;
  if (samePullRequest(reach.pr, { owner, repo, number: reach.pr.number }) && reach.home)
    return { link, reach: { ...reach, api: session.forRepo() }, token: 'githubToken' };
  log.info(
    `The earlier docs pull request ${printableUrl(link)} stays open: no docsToken was given, and the workflow's own token closes a pull request only in ${owner}/${repo}.`,
  );
  return { fate: 'no-token' };
}

/** What became of one superseded docs pull request (`same`: it is its successor). */
type Dealt = 'same' | { fate: SupersededFate; commented?: false };

/**
 * One superseded docs pull request: closed with a comment, or the comment only, or nothing when
 * it is not open or may not be closed. `unanswered`: GitHub did not answer, a later run tries again.
 */
async function closeOne(
  session: GitHubSession,
  { link, reach, token }: Closer,
  successor: { link: string; pr?: PullRequestRef; opener?: string | undefined },
  signal: AbortSignal,
): Promise<Dealt> {
  const { run, log, warn } = session;
  const { pr, api, home } = reach;
  if (successor.pr ? samePullRequest(pr, successor.pr) : link === successor.link) return 'same';
  const where = `${pr.owner}/${pr.repo}#${pr.number}`;
  const failed = (error: unknown): Dealt => ({ fate: faultOf(error).passing ? 'unanswered' : 'refused' });
  if (home && eventHasThread(run.event)) {
    try {
      const own = (await session.runThread(signal)).thread;
      if (own && samePullRequest(own, pr)) {
        warn(
          `The earlier docs pull request ${where} is the ${own.pull ? 'pull request' : 'issue'} this run is about; it is not closed.`,
        );
        return { fate: 'thread' };
      }
    } catch (error) {
      warn(
        `Could not tell whether ${where} is the pull request this run is about (${describeThrown(error)}); it is not closed.`,
      );
      return failed(error);
    }
  }
  const at = { owner: pr.owner, repo: pr.repo, pull_number: pr.number };
  let step = 'read';
  let kept: 'committed' | 'opener' | undefined;
  try {
    const pull = await session.retrying(() => api.getPull(at, signal), signal);
    if (pull.state !== 'open') {
      log.info(`The earlier docs pull request ${where} is ${pull.state} already.`);
      return { fate: 'gone' };
    }
    // A pull request this action keeps a thread on (its comment's marker) is someone's change
    // the docs follow, never a docs pull request, whatever the record says.
    step = 'read the comments of';
    if (await session.retrying(() => keepsAThread(api, at, signal), signal)) {
      warn(
        `The earlier docs pull request ${where} is a pull request this action keeps a docs thread on, not a docs pull request; it is not closed.`,
      );
      return { fate: 'thread' };
    }
    step = 'list the commits of';
    const sameOpener =
      pull.opener !== undefined && pull.opener.toLowerCase() === successor.opener?.toLowerCase();
    kept = !sameOpener
      ? 'opener'
      : (await session.retrying(() => othersCommitted(api, at, pull.opener, signal), signal))
        ? 'committed'
        : undefined;
    if (!kept) {
      step = 'close';
      await api.closePull(at, signal);
      log.info(
        `Closed the earlier docs pull request ${where}: ${printableUrl(successor.link)} supersedes it.`,
      );
    } else {
      log.info(
        `The earlier docs pull request ${where} stays open: ${kept === 'committed' ? 'someone other than its opener committed to it' : 'the account that opened its successor did not open it'}.`,
      );
    }
    step = 'comment on';
    await api.createComment(
      {
        owner: pr.owner,
        repo: pr.repo,
        issue_number: pr.number,
        body: noticeBody(successor.link, kept, session.runUrl),
      },
      signal,
    );
    return { fate: fateOf(kept) };
  } catch (error) {
    warn(
      describeGitHubFault(error, {
        what: `${step} the superseded docs pull request ${where}`,
        token,
        permission: 'pull-requests: write',
        repo: `${pr.owner}/${pr.repo}`,
      }),
    );
    // Closed (or left open, as told) whatever the comment's fault: only the comment is missing.
    if (step === 'comment on') return { fate: fateOf(kept), commented: false };
    return failed(error);
  }
}

/** The fate of a pull request that was open: closed, or kept open for the reason given. */
const fateOf = (kept: 'committed' | 'opener' | undefined): SupersededFate =>
  kept === 'committed' ? 'kept' : kept === 'opener' ? 'foreign' : 'closed';

/** Whether the pull request's first page of comments holds this action's kept comment. */
export async function keepsAThread(
  api: GitHubApi,
  at: { owner: string; repo: string; pull_number: number },
  signal: AbortSignal,
): Promise<boolean> {
  const { comments } = await api.commentsPage(
    { owner: at.owner, repo: at.repo, issue_number: at.pull_number, page: 1 },
    signal,
  );
  return comments.some((c) => c.body.startsWith(MARKER_PREFIX));
}

/**
 * Whether anyone but the opener committed to the pull request, as each commit's author and
 * committer accounts tell it. Compared with the opener, not a fixed name: whatever account the
 * service opens its pull requests with. A commit GitHub links to no account (an email no account
 * claims) may be anyone's, so it counts as someone else's; GitHub as committer (a web edit, a
 * commit signed for an app) says nothing of who wrote it, whose author is what counts.
 */
export async function othersCommitted(
  api: GitHubApi,
  at: { owner: string; repo: string; pull_number: number },
  opener: string | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  if (opener === undefined) return true;
  const mine = (login: string | undefined) => login?.toLowerCase() === opener.toLowerCase();
  let listed = 0;
  let pages = 0;
  for await (const commits of api.pullCommits(at, signal)) {
    if (++pages > LISTED_COMMITS / 100) return true;
    for (const { author, committer } of commits) {
      if (!mine(author)) return true;
      if (committer !== GITHUB_COMMITTER && !mine(committer)) return true;
    }
    listed += commits.length;
    if (listed >= LISTED_COMMITS) return true;
  }
  return false;
}

/** The comment on the superseded docs pull request: it links its successor, and says why. */
function noticeBody(successor: string, kept: 'committed' | 'opener' | undefined, runUrl: string): string {
  const next = pullRequestLink(successor) ?? inert(successor, 300);
  const why =
    'The documentation service no longer takes follow-ups for the job that opened this pull request, so a new job carries its thread on.';
  const end = kept
    ? `It stays open, as ${kept === 'committed' ? 'someone other than its opener committed to it' : 'the account that opened its successor did not open it'}: close it once what it holds is carried over or no longer needed.`
    : 'Closed, as only its opener committed to it.';
  return `↪️ Superseded by ${next}. ${why} ${end} (<a href="${cell(runUrl, 2000)}">workflow run</a>)\n`;
}
