import type { GitHubApi, RunContext } from './client.js';
import {
  branchOf,
  issueContext,
  pullRequestContext,
  pullRequestSinceContext,
  pushContext,
  releaseContext,
  COMPARE_MAX_FILES,
  PULL_MAX_FILES,
  ZERO_SHA,
  type ChangedFile,
  type EventContext,
} from './context.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { type RunEvent } from '../core/event.js';
import { refWords } from '../core/ref-words.js';
import type { Warn } from '../core/log.js';

type Push = Extract<RunEvent, { kind: 'push' }>;

/** Whether the event's context is read from GitHub or the payload; any other event adds nothing. */
export function eventHasContext(event: RunEvent): boolean {
  return (
    event.kind === 'push' ||
    event.kind === 'pull-request' ||
    event.kind === 'release' ||
    event.kind === 'issue' ||
    event.kind === 'comment'
  );
}

/**
 * Why a comparison whose head lies behind its base tells nothing: a branch forced back to older
 * commits changed what the job saw, and GitHub's three-dot comparison lists none of it.
 */
const BEHIND =
  'The branch went back to older commits since the job last looked (a forced push?), and GitHub’s comparison lists nothing of what that changed.';

/**
 * Why a reply without `files` tells nothing of what changed: GitHub's description lets a
 * comparison or a commit leave them out, so an absent list is "not known", never "none".
 */
function unlisted(what: string): string {
  return `GitHub did not list the files of ${what} (its reply left them out), so which files changed is unknown.`;
}

/** GitHub returns at most 3,000 files of a pull request: 30 pages of 100. */
const MAX_PULL_PAGES = 30;

/**
 * A pull request's files, added to `files` page by page (a fault keeps the pages read), at most
 * GitHub's 30 pages; whether it stopped at that cap rather than at the last page (more may follow).
 */
async function pullFilesInto(
  api: GitHubApi,
  at: { owner: string; repo: string; pull_number: number },
  files: ChangedFile[],
  signal: AbortSignal,
): Promise<boolean> {
  let pages = 0;
  for await (const batch of api.pullFiles(at, signal)) {
    files.push(...batch);
    if (++pages >= MAX_PULL_PAGES) return true;
  }
  return false;
}

/**
 * What the event changed, asked of GitHub where the payload does not say (a push's files, a pull
 * request's files). A GitHub fault is one warning, and the context is what the payload gave:
 * context never costs a job.
 */
export function gatherContext(
  api: GitHubApi,
  run: RunContext,
  warn: Warn,
  signal: AbortSignal,
): Promise<EventContext | undefined> {
  return gather(api, run, undefined, warn, signal);
}

/** `gatherContext`, with a push's changes counted from `since` (else from its `before`). */
async function gather(
  api: GitHubApi,
  run: RunContext,
  since: string | undefined,
  warn: Warn,
  signal: AbortSignal,
  until?: string,
): Promise<EventContext | undefined> {
  const { event, payload } = run;
  const { owner, repo } = run.repo;
  const fullRepo = `${owner}/${repo}`;
  const fault = (what: string, permission: string, error: unknown) => {
    // A cancelled step is not a GitHub fault: it ends the step, not the context.
    if (signal.aborted && !isTimeout(signal.reason)) throw signal.reason;
    warn(
      `${describeGitHubFault(error, { what, token: 'githubToken', permission, repo: fullRepo })} The job is created with the context the event itself gave.`,
    );
  };

  switch (event.kind) {
    case 'push': {
      // A deleted branch changed nothing there is to document.
      if (event.deleted) return undefined;
      const after = until ?? event.after ?? run.sha;
      try {
        return pushContext(payload, fullRepo, await pushChanges(api, run, event, since, after, signal));
      } catch (error) {
        fault('read which files the push changed', 'contents: read', error);
        return pushContext(payload, fullRepo);
      }
    }
    case 'pull-request': {
      const number = event.pull?.number;
      if (number === undefined) return undefined;
      const files: ChangedFile[] = [];
      try {
        await pullFilesInto(api, { owner, repo, pull_number: number }, files, signal);
        return pullRequestContext(payload, files);
      } catch (error) {
        fault(`read the files of pull request #${number}`, 'pull-requests: read', error);
        // The pages read so far still tell something.
        return pullRequestContext(payload, files.length > 0 ? files : undefined, files.length > 0);
      }
    }
    case 'release':
      return releaseContext(payload);
    case 'issue':
      return issueContext(payload);
    case 'comment': {
      // A request on a pull request (a review comment's too) gets the pull request's files, as its
      // opening would: a job it starts has seen the head the thread then records.
      const asked = event.review ? pullRequestContext(payload, []) : issueContext(payload);
      const number = event.review ? event.pull?.number : event.issue?.pull ? event.issue.number : undefined;
      if (number === undefined) return asked;
      const files: ChangedFile[] = [];
      try {
        await pullFilesInto(api, { owner, repo, pull_number: number }, files, signal);
        return { ...asked, files };
      } catch (error) {
        fault(`read the files of pull request #${number}`, 'pull-requests: read', error);
        return files.length > 0
          ? {
              ...asked,
              files,
              notes: [...asked.notes, 'GitHub stopped answering: the file list is incomplete.'],
            }
          : asked;
      }
    }
    default:
      return undefined;
  }
}

/**
 * The commits and files of a push: `before...after`; for a new branch, the default branch
 * `...after` (on the default branch itself, the pushed commit alone); when GitHub cannot compare
 * (a forced push whose old commits are gone), the pushed commit alone. `partial` says why the
 * files may be fewer than the push changed: the pushed commit alone stands for the whole push.
 */
async function pushChanges(
  api: GitHubApi,
  run: RunContext,
  push: Push,
  since: string | undefined,
  after: string,
  signal: AbortSignal,
) {
  const { owner, repo } = run.repo;
  const alone = async (why: string, partial: string) => {
    const { commit, files, url } = await api.getCommit({ owner, repo, ref: after }, signal);
    if (!files) {
      const unknown = unlisted(`the pushed commit ${after.slice(0, 12)}`);
      return {
        commits: [commit],
        files: [],
        alone: why,
        partial: unknown,
        unlisted: unknown,
        compareUrl: url,
      };
    }
    return { commits: [commit], files, alone: why, partial, compareUrl: url };
  };
  const before = since ?? push.before ?? '';
  let base = before;
  if (!before || ZERO_SHA.test(before)) {
    const defaultBranch = push.repository?.defaultBranch;
    if (!defaultBranch || branchOf(push.ref) === defaultBranch) {
      // A tag is not a branch: the words name what the push made.
      const made = refWords(push.ref);
      return alone(
        `The push made ${made}: the pushed commit alone is shown.`,
        `The push made ${made} with nothing to compare it with, so only its head commit’s files are known.`,
      );
    }
    base = defaultBranch;
  }
  try {
    const { commits, files, url, behind } = await api.compare(
      { owner, repo, basehead: `${base}...${after}` },
      signal,
    );
    if (!files) {
      const unknown = unlisted('the push’s comparison');
      return { commits, files: [], partial: unknown, unlisted: unknown, compareUrl: url };
    }
    return { commits, files, compareUrl: url, behind };
  } catch (error) {
    if (!faultOf(error).gone) throw error;
    return alone(
      'GitHub could not compare this push with what came before (a forced push?): the pushed commit alone is shown.',
      'GitHub could not compare the push with what came before (a forced push?), so only its head commit’s files are known.',
    );
  }
}

/** Duck-typed: a DOMException from another realm is not `instanceof Error`. */
function isTimeout(reason: unknown): boolean {
  return (reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
}

/**
 * For a follow-up: what changed since `last`, the head the job saw — on a pull request its new
 * commits, on a branch every push since (runs cancelled in between included), not only this
 * push's `before...after`. Any other event gives what `gatherContext` gives.
 */
export async function gatherSince(
  api: GitHubApi,
  run: RunContext,
  last: string,
  head: string,
  warn: Warn,
  signal: AbortSignal,
): Promise<EventContext | undefined> {
  const { event, payload } = run;
  // A merge's `head` is the merged pull request's own head, not the pushed merge commit.
  if (event.kind === 'push') return gather(api, run, last, warn, signal, head);
  if (event.kind === 'comment') return requestSince(api, run, last, head, warn, signal);
  if (event.kind !== 'pull-request') return gatherContext(api, run, warn, signal);
  const { owner, repo } = run.repo;
  try {
    const { commits, files, url } = await api.compare({ owner, repo, basehead: `${last}...${head}` }, signal);
    const context = pullRequestSinceContext(
      payload,
      { base: last, head, commits, files: files ?? [], url },
      undefined,
    );
    if (!files) context.notes.push(unlisted('the comparison'));
    return context;
  } catch (error) {
    const { gone } = faultOf(error);
    if (!gone) {
      if (signal.aborted && !isTimeout(signal.reason)) throw signal.reason;
      warn(
        `${describeGitHubFault(error, { what: `compare ${last.slice(0, 12)}...${head.slice(0, 12)}`, token: 'githubToken', permission: 'contents: read', repo: `${owner}/${repo}` })} The whole pull request is sent as context instead.`,
      );
    }
    const whole = await gatherContext(api, run, warn, signal);
    return whole && gone ? pullRequestSinceContext(payload, undefined, whole.files) : whole;
  }
}

/**
 * A request on a pull request, for a follow-up: the comment's context and what changed since the
 * head the job last saw up to the head this run read, which the thread's note then records: a
 * request moves the job's last head, so the changes up to it are told now or never.
 */
async function requestSince(
  api: GitHubApi,
  run: RunContext,
  last: string,
  head: string,
  warn: Warn,
  signal: AbortSignal,
): Promise<EventContext> {
  const { event, payload } = run;
  // A review comment's payload carries its pull request, an issue comment's the issue.
  const review = event.kind === 'comment' && event.review;
  const asked = review ? pullRequestContext(payload) : issueContext(payload);
  const { owner, repo } = run.repo;
  const title = `${asked.title.replace(/\.$/, '')}: the request, and what changed since the docs job last saw it (${last.slice(0, 7)}…${head.slice(0, 7)}).`;
  try {
    const { commits, files, url } = await api.compare({ owner, repo, basehead: `${last}...${head}` }, signal);
    const notes = files ? asked.notes : [...asked.notes, unlisted('the comparison')];
    return {
      ...asked,
      title,
      facts: [...asked.facts, `Compare: ${url}`],
      commits,
      files: files ?? [],
      notes,
    };
  } catch (error) {
    if (signal.aborted && !isTimeout(signal.reason)) throw signal.reason;
    if (!faultOf(error).gone)
      warn(
        `${describeGitHubFault(error, { what: `compare ${last.slice(0, 12)}...${head.slice(0, 12)}`, token: 'githubToken', permission: 'contents: read', repo: `${owner}/${repo}` })} The pull request's files are sent instead.`,
      );
  }
  // The head it read is recorded as the job's last: what changed up to it is told now or never,
  // so the whole pull request's files stand in for the comparison.
  const number = event.kind === 'comment' ? (event.pull?.number ?? event.issue?.number) : undefined;
  const files: ChangedFile[] = [];
  if (number !== undefined) {
    try {
      await pullFilesInto(api, { owner, repo, pull_number: number }, files, signal);
    } catch (error) {
      if (signal.aborted && !isTimeout(signal.reason)) throw signal.reason;
      warn(
        `${describeGitHubFault(error, { what: `read the files of pull request #${number}`, token: 'githubToken', permission: 'pull-requests: read', repo: `${owner}/${repo}` })} The request is sent without what changed since the job last looked.`,
      );
    }
  }
  return {
    ...asked,
    title,
    files,
    notes: [
      ...asked.notes,
      'GitHub could not compare with the commit the docs job last saw (a forced push?): the whole pull request’s files are shown.',
    ],
  };
}

/**
 * The files an event changed, as `paths` matches them. `partial`, when set, says why GitHub may
 * have given fewer files than the change has: such a list never lets `paths` skip.
 */
export interface ChangedFiles {
  files: string[];
  partial?: string;
  /** The list is a comparison GitHub made since the head asked about (or that very head). */
  compared?: true;
}

/**
 * The files the event changed — the lists `context: auto` reads — or, with `since` (the head a
 * thread's job last saw), what changed since. A fault is thrown: whether a change is relevant is
 * never decided on a list that could not be read.
 */
export async function changedFiles(
  api: GitHubApi,
  run: RunContext,
  since: string | undefined,
  signal: AbortSignal,
  until?: string,
): Promise<ChangedFiles> {
  const { owner, repo } = run.repo;
  const names = (files: ChangedFile[]) => [
    ...new Set(
      files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename])),
    ),
  ];
  const compared = (files: ChangedFile[], behind = false): ChangedFiles => ({
    files: names(files),
    ...(behind
      ? { partial: BEHIND }
      : files.length >= COMPARE_MAX_FILES
        ? {
            partial: `GitHub lists at most ${COMPARE_MAX_FILES} files of a comparison and listed ${files.length}, so more may have changed.`,
          }
        : {}),
  });
  const { event } = run;
  if (event.kind === 'push') {
    if (event.deleted) return { files: [] };
    const after = until ?? event.after ?? run.sha;
    // The job already saw this very commit: nothing changed since, no comparison needed.
    if (since && since === after) return { files: [], compared: true };
    const changes = await pushChanges(api, run, event, since || undefined, after, signal);
    // A commit's files are listed as a comparison's are, at most 300 of them.
    if ('partial' in changes) return { files: names(changes.files), partial: changes.partial };
    return { ...compared(changes.files, changes.behind), ...(since ? { compared: true as const } : {}) };
  }
  const pull = 'pull' in event ? event.pull : undefined;
  const number = pull?.number;
  const head = pull?.headSha;
  if (number === undefined) {
    return { files: [], partial: 'The event names no pull request, so which files it changed is unknown.' };
  }
  if (since && since === head) return { files: [], compared: true };
  if (since && head && since !== head) {
    try {
      const { files, behind } = await api.compare({ owner, repo, basehead: `${since}...${head}` }, signal);
      if (!files)
        return { files: [], partial: unlisted('the comparison since the job last looked'), compared: true };
      return { ...compared(files, behind), compared: true };
    } catch (error) {
      // A comparison GitHub cannot make (a forced push): the whole pull request's files, which
      // hold every file changed since.
      if (!faultOf(error).gone) throw error;
    }
  }
  const files: ChangedFile[] = [];
  // Stopped at the cap, not at the last page: more may follow (a pull request of 2,901 to 2,999
  // files is taken as cut too, which only ever lets its job go ahead).
  const cut = await pullFilesInto(api, { owner, repo, pull_number: number }, files, signal);
  return {
    files: names(files),
    ...(cut || files.length >= PULL_MAX_FILES
      ? {
          partial: `GitHub lists at most ${PULL_MAX_FILES.toLocaleString('en-US')} files of a pull request and listed ${files.length.toLocaleString('en-US')}, so more may have changed.`,
        }
      : {}),
  };
}
