// A branch's job left at work is kept in this step's commit status on the pushed commit, and no
// GitHub list finds a status: statuses are listed a commit at a time. So the run that leaves it
// pending also records it where a report run lists every such record of its project and step in
// one request, whatever branch it is on and however much came after it: a git ref in a namespace
// of the action's own, `refs/agent-job-action/waiting/<project>/<step>/<job and commit>`, pointing
// at that commit. The ref is the index, never the truth: a report run believes only the status
// this step's identity wrote on the ref's commit, in this step's context, for the job the ref's
// name hashes (anyone with `contents: write` can write a ref). A ref under refs/heads or refs/tags
// would be a branch or a tag people see and workflows run on; one outside them is neither, and
// keeps its commit from being collected while it waits. Other indexes were weighed: a label
// indexes issues, not commits; the repository's labels or an issue of the action's own would be
// clutter people see and edit; deployments and check runs need permissions of their own and are
// listed a commit (or an environment) at a time. The price is `contents: write` for the run that
// records: where GitHub refuses it, the record is one warning, and report runs look where they
// did before (the default branch's newest commits).
import { createHash } from 'node:crypto';
import { projectKey } from '../core/ledger.js';
import { label } from '../core/untrusted.js';
import { describeGitHubFault, faultOf } from './errors.js';
import type { GitHubSession } from './session.js';
import { readStatusNote } from './status.js';

/** The action's own namespace under `refs/`, for the records of jobs left at work. */
export const WAITING_REFS = 'agent-job-action/waiting';
/** How many of the default branch's newest commits a report run reads when no job is recorded. */
export const BRANCH_SWEEP = 10;
/** The most records a report run reads: the rest wait for a later run. */
export const MAX_RECORDS = 100;
/** GitHub has been seen to answer every matching ref at once; pages, if it sends any, are bounded. */
const MAX_LIST_PAGES = 10;
/**
 * How far down a record's commit's statuses a report run looks for this step's own (newest first,
 * 100 a page): it is buried only by statuses written later on that one commit.
 */
const RECORD_PAGES = 10;

/** A record as listed: its name under `refs/` and the commit it points at. */
export interface RecordRef {
  name: string;
  sha: string;
}

/**
 * A record read back: the job its name hashes, as this step's own status names it on the ref's
 * commit (the run that wrote that status), and `pending`, when that status is still this step's
 * newest there and still says the job goes on.
 */
export interface BranchRecord extends RecordRef {
  job: string;
  run: number;
  pending?: { context: string; at?: number; overdue?: true; supersedes?: string };
}

const digest = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/** Where this project's and step's records are: one listing finds them all, and no one else's. */
function recordsPrefix(session: GitHubSession, context: string): string {
  const { baseUrl, projectId } = session.request;
  return `${WAITING_REFS}/${projectKey(baseUrl, projectId)}/${digest(context, 16)}`;
}

/** The last part of a record's name: the job and the commit, hashed (a job id may hold what a ref may not). */
const recordKey = (job: string, sha: string) => digest(JSON.stringify([job, sha]), 32);

/** The name under `refs/` of the record of job `job` left at work on commit `sha`. */
export function recordName(session: GitHubSession, context: string, job: string, sha: string): string {
  return `${recordsPrefix(session, context)}/${recordKey(job, sha)}`;
}

/** GitHub's own message in a refusal: what tells one 422 from another. */
function gitHubSaid(error: unknown): string | undefined {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  const message = (data as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * After this step's pending status on `sha` says job `jobId` goes on in the service: on a branch's
 * thread (a push no pull request explains; a pull request's or issue's thread is found by its
 * label), the record a report run finds it by. A refusal is one warning that names the permission.
 */
export async function recordBranchWaiting(
  session: GitHubSession,
  sha: string,
  jobId: string,
  signal: AbortSignal,
): Promise<void> {
  const { request, status, run } = session;
  if (!request.thread || !status || run.event.kind !== 'push') return;
  // Looked up already for the comment: a fault there is said there, and leaves no record here.
  const kept = await session.keptComment(signal).catch(() => undefined);
  if (!kept || !('none' in kept)) return;
  const { owner, repo } = run.repo;
  const name = recordName(session, status.context, jobId, sha);
  try {
    // Safe to try again: a create that reached GitHub before its answer was lost is then a 422.
    await session.retrying(
      () => session.forRepo().createRef({ owner, repo, ref: `refs/${name}`, sha }, signal),
      signal,
    );
    session.say(`Recorded agent job ${label(jobId)}, left at work on ${sha.slice(0, 12)}, as refs/${name}.`);
  } catch (error) {
    // A re-run's record, or the first try's: the job is recorded.
    if (faultOf(error).status === 422 && gitHubSaid(error) === 'Reference already exists') return;
    session.warn(
      `${describeGitHubFault(error, {
        what: `record agent job ${label(jobId)}, left at work on ${sha.slice(0, 12)}, for report runs (the git ref refs/${name})`,
        token: 'githubToken',
        permission: 'contents: write',
        repo: `${owner}/${repo}`,
      })} Without such records, report runs look for a branch's job only among the default branch's ${BRANCH_SWEEP} newest commits.`,
    );
  }
}

/**
 * This project's and step's records, checked: a name of the record's form pointing at a commit.
 * `undefined` when GitHub refuses the listing (one warning: report runs then look where they did
 * before); an empty repository has none. Other faults throw.
 */
export async function listRecords(
  session: GitHubSession,
  context: string,
  signal: AbortSignal,
): Promise<RecordRef[] | undefined> {
  const { owner, repo } = session.run.repo;
  const prefix = recordsPrefix(session, context);
  const shape = new RegExp(`^refs/${prefix}/[0-9a-f]{32}$`);
  try {
    return await session.retrying(async () => {
      const found: RecordRef[] = [];
      let pages = 0;
      for await (const page of session.forRepo().matchingRefs({ owner, repo, prefix }, signal)) {
        for (const { ref, sha, type } of page)
          if (shape.test(ref) && type === 'commit' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha))
            found.push({ name: ref.slice('refs/'.length), sha });
        if (++pages >= MAX_LIST_PAGES) break;
      }
      return found;
    }, signal);
  } catch (error) {
    const fault = faultOf(error);
    if (fault.status === 409) return [];
    if (fault.status !== 403 && !fault.notFound) throw error;
    session.warn(
      `${describeGitHubFault(error, {
        what: `list the branches' jobs left at work (the git refs under refs/${WAITING_REFS}/)`,
        token: 'githubToken',
        permission: 'contents: read',
        repo: `${owner}/${repo}`,
      })} This run looks for them only among the default branch's ${BRANCH_SWEEP} newest commits.`,
    );
    return undefined;
  }
}

/**
 * What a record stands for, as this step's own statuses on its commit say: the newest of them in
 * `context`, and the one (it or an older one) that names the job the record's name hashes.
 * `undefined` when none does within the pages looked at: not this step's record, whoever wrote it.
 */
export async function readRecord(
  session: GitHubSession,
  record: RecordRef,
  context: string,
  signal: AbortSignal,
): Promise<BranchRecord | undefined> {
  const { owner, repo } = session.run.repo;
  const wanted = record.name.slice(record.name.lastIndexOf('/') + 1);
  const read = async (): Promise<BranchRecord | undefined> => {
    const login = await session.ownLogin(signal);
    let newest = true;
    let pages = 0;
    for await (const page of session.forRepo().statuses({ owner, repo, ref: record.sha }, signal)) {
      for (const status of page) {
        if (status.creator !== login || status.context !== context) continue;
        const note = readStatusNote(status.description);
        const first = newest;
        newest = false;
        if (!note?.job || recordKey(note.job, record.sha) !== wanted) continue;
        const job = session.trusted(note, 'the commit status')?.job;
        if (!job) return undefined;
        // Pending while it goes on, or marked overdue (its real end still to replace the mark).
        const waits =
          first &&
          !note.ended &&
          ((status.state === 'pending' && note.goesOn === true) || note.overdue === true);
        const at = Date.parse(status.createdAt ?? '');
        return {
          ...record,
          job,
          run: note.run,
          ...(waits
            ? {
                pending: {
                  context,
                  ...(Number.isNaN(at) ? {} : { at }),
                  ...(note.overdue ? { overdue: true as const } : {}),
                  ...(note.supersedes ? { supersedes: note.supersedes } : {}),
                },
              }
            : {}),
        };
      }
      if (++pages >= RECORD_PAGES) break;
    }
    return undefined;
  };
  try {
    return await session.retrying(read, signal);
  } catch (error) {
    // A commit GitHub no longer has (a ref holds its commit, so hardly) carries no status.
    if (faultOf(error).gone && !faultOf(error).identity) return undefined;
    throw error;
  }
}

/** Sessions whose token GitHub refused a record's deletion: said once a run, not tried again. */
const refusedDeletes = new WeakSet<GitHubSession>();

/**
 * Each record whose status no longer waits (its end written, by this run or another) deleted:
 * read again first, so that a status write that failed keeps its record for a later run. A
 * delete GitHub refuses is one warning a run, and no more are tried; any other that fails, a
 * warning. A fault reading a record is the caller's.
 */
export async function dropRecords(
  session: GitHubSession,
  records: readonly RecordRef[],
  signal: AbortSignal,
): Promise<void> {
  const { owner, repo } = session.run.repo;
  const context = session.statusContext;
  for (const record of records) {
    if (refusedDeletes.has(session) || signal.aborted) return;
    const now = await readRecord(session, record, context, signal);
    if (!now || now.pending) continue;
    try {
      // Safe to try again: a delete that reached GitHub before its answer was lost is then a 422.
      await session.retrying(
        () => session.forRepo().deleteRef({ owner, repo, ref: record.name }, signal),
        signal,
      );
      session.say(`Deleted refs/${record.name}: no status of agent job ${label(now.job)} waits there.`);
    } catch (error) {
      if (faultOf(error).status === 422 && gitHubSaid(error) === 'Reference does not exist') continue;
      if (faultOf(error).status === 403) refusedDeletes.add(session);
      session.warn(
        describeGitHubFault(error, {
          what: `delete refs/${record.name}, the record of agent job ${label(now.job)}, whose end is written`,
          token: 'githubToken',
          permission: 'contents: write',
          repo: `${owner}/${repo}`,
        }),
      );
    }
  }
}
