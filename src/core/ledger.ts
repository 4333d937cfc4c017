// The thread's ledger: what a pull request's or issue's thread has spent and owes — its job and
// the head the job last saw, the jobs of its recent runs, its quota uses, the docs pull requests
// waiting to be closed, and the `/docs` requests asked and settled; for a branch pushed to
// directly, its job's count of uses — as plain values and pure functions. The GitHub side only
// encodes it (the kept comment's hidden note, a branch's commit status) and decodes it; every rule
// of what a run changes in it lives here, whatever run writes it.
import { createHash } from 'node:crypto';
import { isTerminal, type AgentJob } from './job.js';
import type {
  Carried,
  Memory,
  RequestLedger,
  RunEntry,
  ThreadNote,
  Waiting,
  WaitingEnd,
  WaitingNews,
} from './ports.js';
import { badLabel, isReviewer } from './names.js';
import { label, quote } from './untrusted.js';

export type { RequestLedger, ThreadNote };

/** The requests asked on the thread's docs pull request (`pr`: `owner/repo#number`, lower case). */
export type DocsLedger = NonNullable<ThreadNote['docs']>;

/** Enough for a re-run after a busy day of other runs on the thread. */
export const RECENT_RUNS = 20;
/** Docs pull requests waiting to be closed: a thread whose follow-ups are refused again and again keeps the newest. */
export const SUPERSEDED_KEPT = 5;
/** A pull request's URL, with room to spare. */
export const MAX_LINK = 500;
/** The runs whose settled requests the ledger keeps by id (the newest), to say which run sent one. */
export const SETTLED_RUNS = 20;
/** The most request ids kept above the floor: past it the floor rises, oldest first. */
export const SETTLED_IDS = 300;
/** The most labels, and the most reviewers, a waiting job's record keeps (GitHub takes 100 labels). */
export const WAITING_NAMES = 100;

/** The thread's total once this run's uses are in: what earlier runs recorded, this run's counted once. */
export function threadUses(
  before: { uses?: number; runs?: RunEntry[] } | undefined,
  run: { run: number; attempt: number; uses: number },
): number {
  const counted =
    before?.runs?.find((entry) => entry.run === run.run && entry.attempt === run.attempt)?.uses ?? 0;
  return Math.max(0, (before?.uses ?? 0) - counted) + run.uses;
}

/**
 * A branch's count of its job's quota uses, which the branch's commit status keeps (a branch has
 * no note): what this step's status on the run's commit counted (an earlier attempt of this run)
 * first, else what the branch's last status counted, plus this run's `uses`. A new job starts
 * again from this run's. A count not known before stays unknown on a run that spent nothing, and
 * starts from this run's send otherwise.
 */
export function branchUses(
  memory: Pick<Memory, 'status' | 'branch'>,
  job: string,
  uses: number,
): number | undefined {
  const earlier = memory.status?.job === job ? memory.status.uses : undefined;
  const counted = memory.branch?.job === job ? memory.branch.uses : 0;
  const before = earlier ?? counted;
  if (before === undefined && uses === 0) return undefined;
  return (before ?? 0) + uses;
}

/**
 * The requests a note records. A note of this version has its own record. One written before
 * requests were kept by id: every request up to the highest it delivered is settled (and, with no
 * record at all, every request before the kept comment). No note (a thread's first run): nothing is
 * settled yet — a request made before the thread had a job had no run that sent it.
 */
export function requestLedger(note: ThreadNote | undefined, keptId?: number): RequestLedger {
  if (note?.requests) return note.requests;
  if (!note) return { floor: 0, settled: [] };
  const legacy = note.delivered ?? [];
  if (legacy.length > 0) return { floor: Math.max(...legacy.map((d) => d.upTo)), settled: [] };
  return { floor: keptId ?? 0, settled: [] };
}

/** How a request stands in the ledger: settled by a run (sent, or refused), settled below the floor, or open. */
export function standing(
  ledger: RequestLedger,
  id: number,
): { settled: boolean; run?: number; refused?: true } {
  const entry = ledger.settled.find((e) => e.ids.includes(id));
  if (entry) return { settled: true, run: entry.run, ...(entry.refused ? { refused: true as const } : {}) };
  return { settled: id <= ledger.floor };
}

/** The ids among `ids` the ledger still owes an answer: above the floor, settled by no run. */
export function open(ledger: RequestLedger, ids: number[]): number[] {
  return ids.filter((id) => !standing(ledger, id).settled);
}

/**
 * The ledger once a run settled `sent` (carried in a send the service accepted) and `refused`
 * (their authors may not ask: told so, never sent). `readUpTo`: every comment from the floor up
 * to it was read by the run, and `owed` those read that stay open (an author GitHub could not
 * tell about, past the bounds of one send): the floor rises over what is settled, never past a
 * request still open or one the run did not read.
 */
export function settle(
  ledger: RequestLedger,
  run: number,
  done: { sent: number[]; refused: number[]; owed: number[]; readUpTo?: number },
): RequestLedger {
  const fresh = (ids: number[]) => ids.filter((id) => id > ledger.floor);
  const sent = fresh(done.sent);
  const refused = fresh(done.refused);
  let settled = ledger.settled.map((e) => ({ ...e, ids: [...e.ids] }));
  const add = (ids: number[], flag: boolean) => {
    if (ids.length === 0) return;
    const same = settled.find((e) => e.run === run && Boolean(e.refused) === flag);
    if (same) same.ids = [...new Set([...same.ids, ...ids])].sort((a, b) => a - b);
    else
      settled.push({ run, ids: [...ids].sort((a, b) => a - b), ...(flag ? { refused: true as const } : {}) });
  };
  add(sent, false);
  add(refused, true);
  let floor = ledger.floor;
  if (done.readUpTo !== undefined) {
    const lowestOpen = Math.min(...done.owed.filter((id) => id > floor), Infinity);
    floor = Math.max(floor, Math.min(done.readUpTo, lowestOpen - 1));
  }
  // Newest run first. An entry wholly at or below the floor only says who sent its requests:
  // past SETTLED_RUNS those go. One above the floor goes only with the floor raised over it.
  settled.sort((a, b) => b.run - a.run);
  const above = (e: { ids: number[] }) => e.ids.some((id) => id > floor);
  settled = settled.filter((e, i) => i < SETTLED_RUNS || above(e));
  // A request left open for hundreds of others (an author GitHub never tells about) is given up
  // on at last: the note must stay within what a comment holds.
  while (settled.reduce((n, e) => n + e.ids.length, 0) > SETTLED_IDS && settled.length > 1) {
    const oldest = settled.pop();
    floor = Math.max(floor, ...(oldest?.ids ?? []));
  }
  return { floor, settled };
}

/**
 * The requests once the run is over: what it carried is settled only when the service `accepted`
 * its send (a 429, a refusal, a fault, a run that only waits: still owed, and the floor stays
 * below them); those refused are settled either way.
 */
export function settled(carried: Carried, run: number, accepted: boolean): RequestLedger {
  const { ledger, sent, refused, owed, readUpTo } = carried;
  return settle(ledger, run, {
    sent: accepted ? sent : [],
    refused,
    owed: accepted ? owed : [...owed, ...sent],
    ...(readUpTo !== undefined ? { readUpTo } : {}),
  });
}

/**
 * The next note after this run, whose job the service confirmed. Job and head move forward only:
 * run ids grow, so a re-run of an older run adds itself to the recent runs but leaves the job and
 * head a newer run wrote; a run that saw no commit keeps the head the job last saw. The quota uses
 * add this run's once, however often it writes the note (its entry keeps what it added). Each of
 * `superseded` (none: the run dealt with them), `docsPr` (while the job is the same), `requests`
 * and `waiting` (`null`: reported; kept while the job is the one it waits for, and as a newer run
 * wrote it) is the run's when given, else the previous note's. `merged`: this accepted send told
 * the job its pull request's merge; the note keeps which run did while that job is the thread's.
 */
export function nextLedger(
  previous: ThreadNote | undefined,
  run: {
    job: string;
    head?: string;
    run: number;
    attempt: number;
    uses?: number;
    superseded?: string[];
    docsPr?: string;
    requests?: RequestLedger;
    /** The job left at work for another run to report (`null`: its end was reported). */
    waiting?: Waiting | null;
    /** The requests asked on the thread's docs pull request, when the run settled some. */
    docs?: DocsLedger;
    merged?: boolean;
  },
): ThreadNote {
  const spent = run.uses ?? 0;
  const earlier: RunEntry[] =
    previous?.runs ?? (previous ? [{ run: previous.run, attempt: previous.attempt, job: previous.job }] : []);
  const runs = [
    { run: run.run, attempt: run.attempt, job: run.job, ...(spent > 0 ? { uses: spent } : {}) },
    ...earlier.filter((entry) => entry.run !== run.run),
  ]
    .sort((a, b) => b.run - a.run)
    .slice(0, RECENT_RUNS);
  const total = threadUses(previous, { run: run.run, attempt: run.attempt, uses: spent });
  const uses = total > 0 ? { uses: total } : {};
  const waiting = (run.superseded ?? previous?.superseded ?? [])
    .filter((link) => link.length <= MAX_LINK)
    .slice(-SUPERSEDED_KEPT);
  const superseded = waiting.length > 0 ? { superseded: waiting } : {};
  // Every note of this version keeps its record of requests, even when none is settled yet.
  const requests = { requests: run.requests ?? requestLedger(previous) };
  const kept = run.waiting === undefined ? previous?.waiting : (run.waiting ?? undefined);
  const left = kept && tidy(kept, requests.requests);
  // Only a wait for the thread's own job: one for a job the thread has left is no one's to report.
  const parked = left && (run.waiting !== undefined || previous?.job === run.job) ? { waiting: left } : {};
  if (previous && previous.run > run.run) {
    const older: ThreadNote = { ...previous, runs, ...uses, ...requests };
    delete older.superseded;
    delete older.delivered;
    delete older.waiting;
    // A re-run of an older run that left the job at work again (its send was the newest) is
    // what the thread waits for now.
    const newest = run.waiting ?? previous.waiting;
    const still = newest && tidy(newest, requests.requests);
    return {
      ...older,
      ...superseded,
      ...(run.docs ? { docs: run.docs } : {}),
      ...(still ? { waiting: still } : {}),
    };
  }
  const head = run.head ?? (previous?.job === run.job ? previous.head : undefined);
  const docsPr = run.docsPr ?? (previous?.job === run.job ? previous.docsPr : undefined);
  const docs = run.docs ?? previous?.docs;
  // A preview is its docs PR's, and a merge told is its job's: another job has neither.
  const preview = previous?.job === run.job ? previous.preview : undefined;
  const merged = run.merged ? run.run : previous?.job === run.job ? previous.merged : undefined;
  return {
    job: run.job,
    ...(head ? { head } : {}),
    run: run.run,
    attempt: run.attempt,
    runs,
    ...uses,
    ...(docsPr ? { docsPr } : {}),
    ...superseded,
    ...requests,
    ...(docs ? { docs } : {}),
    ...(preview ? { preview } : {}),
    ...(merged !== undefined ? { merged } : {}),
    ...parked,
  };
}

// The job a run left at work without waiting (`wait: false`), as the thread's record keeps it:
// recorded by that run, owed requests added while it works, its end (or overdue mark) settled by
// the first run that reads it, cleared once the end is written and nothing is owed.

/**
 * Whose job a record names: the service's URL and the project, hashed (the note is public, a
 * gateway's URL need not be). Two projects in one repository never read each other's jobs.
 */
export function projectKey(baseUrl: string, projectId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([baseUrl.replace(/\/+$/, ''), projectId]))
    .digest('hex')
    .slice(0, 16);
}

/** Whether a record is this project's: one of an earlier version (no key) only where `ownStep` says so. */
export function ownProject(waiting: Waiting, key: string, ownStep: boolean): boolean {
  return waiting.project === undefined ? ownStep : waiting.project === key;
}

/**
 * How the waiting job stands at `now`, from what the service answered (`undefined`: it no longer
 * knows the job). A job at work past its run's `timeout` is overdue once (the thread is told),
 * then waited for on: its real end, when it comes, is written over the mark. An end another run
 * wrote is not written again.
 */
export function waitingEnd(waiting: Waiting, job: AgentJob | undefined, now: number): WaitingEnd {
  if (waiting.ended) return { kind: 'written' };
  if (!job) return { kind: 'lost' };
  if (isTerminal(job.status)) return { kind: 'ended', job };
  if (!waiting.overdue && now > waiting.at + waiting.timeout) return { kind: 'overdue', job };
  return { kind: 'at-work' };
}

/**
 * The record as the requests stand: a queued request some run has settled is no longer owed, and
 * a record whose end is written with nothing left owed is done (`undefined`).
 */
export function tidy(waiting: Waiting, requests: RequestLedger): Waiting | undefined {
  const queued = open(requests, waiting.queued ?? []);
  const rest = { ...waiting };
  delete rest.queued;
  if (queued.length > 0) rest.queued = queued;
  return rest.ended && queued.length === 0 && !rest.merge && !rest.docs ? undefined : rest;
}

/**
 * Whether the thread asked for anything while its job worked, for its lane to send: requests
 * queued, or its merge.
 */
export function owes(note: ThreadNote): boolean {
  const { waiting } = note;
  return (
    waiting?.merge === true ||
    waiting?.docs !== undefined ||
    open(requestLedger(note), waiting?.queued ?? []).length > 0
  );
}

/**
 * The record with what was asked on the docs pull request `link` owed (asked while the job works):
 * its lane reads the requests there again once the job's end is written.
 */
export function oweDocs(note: ThreadNote, link: string): ThreadNote {
  const { waiting } = note;
  return waiting ? { ...note, waiting: { ...waiting, docs: link } } : note;
}

/**
 * The requests asked on the docs pull request `pr` (`owner/repo#number`, lower case) as the
 * thread's record keeps them; where it keeps none for that pull request, every request from its
 * note on (`noteId`: the comment that names the thread) is still owed — those before it were
 * answered that no thread took them.
 */
export function docsLedger(note: ThreadNote | undefined, pr: string, noteId: number): RequestLedger {
  return note?.docs?.pr === pr ? note.docs.requests : { floor: noteId, settled: [] };
}

/** The record with the pull request's merge owed (its merge's run was held while the job worked). */
export function oweMerge(note: ThreadNote): ThreadNote {
  const { waiting } = note;
  return waiting ? { ...note, waiting: { ...waiting, merge: true } } : note;
}

/** The record with request `id` owed (queued while the job works; at most WAITING_NAMES, the newest). */
export function owe(note: ThreadNote, id: number): ThreadNote {
  const { waiting } = note;
  if (!waiting) return note;
  const queued = [...(waiting.queued ?? []).filter((q) => q !== id), id].slice(-WAITING_NAMES);
  return { ...note, waiting: { ...waiting, queued } };
}

/**
 * The record once a run wrote `news` on the thread: an overdue mark keeps the wait (the job's real
 * end is still to come); an end clears it, unless something is `owed`: then it stays, its end
 * written, until the thread's lane has sent what is owed.
 */
export function settleWaiting(note: ThreadNote, news: WaitingNews, owed: boolean): ThreadNote {
  const { waiting } = note;
  if (!waiting) return note;
  if (news.kind === 'overdue') return { ...note, waiting: { ...waiting, overdue: true } };
  if (!owed) return clearWaiting(note);
  const rest = { ...waiting, ended: true as const };
  delete rest.overdue;
  return { ...note, waiting: rest };
}

/** The thread's record waiting for nothing: the end is written and nothing is owed. */
export function clearWaiting(note: ThreadNote): ThreadNote {
  const rest = { ...note };
  delete rest.waiting;
  return rest;
}

/** How a waiting job stands, in the log's words: `Agent job X ${howEnded(news)}`. */
export function howEnded(news: WaitingNews): string {
  if (news.kind === 'lost') return 'is no longer known to the service';
  if (news.kind === 'overdue') return 'is still at work past its timeout';
  return `is ${label(news.job.status)}`;
}

// A record is read back from a comment anyone who writes as the action's identity can edit, and
// that identity may be shared (GITHUB_TOKEN is every workflow's of the repository): what the
// record asks is done only where this step would have done it itself (docs/design.md §3.10).

/** What a run knows to check a waiting record against, from what it did not read in the record. */
export interface RecordBounds {
  /**
   * The only status context a record's status may name: the step's own, or one where GitHub says
   * this action's identity wrote a status naming the record's job.
   */
  context: string;
  /** The commits GitHub says carry this step's status for the record's job. */
  commits: readonly string[];
}

/** What a record asked that did not pass, for the one warning that says so. */
export interface Refused {
  status?: { sha: string; context: string; why: 'context' | 'commit' };
  labels: string[];
  reviewers: string[];
}

/**
 * The record with only what passes: its status in the context the caller vouches for (`bounds`: one
 * where this action's identity wrote a status naming the job) on a commit that carries it, and the
 * labels and reviewers the inputs would take (one name an entry, trimmed, as an input's list gives
 * it); `refused` names what was left out. `autoMerge` is one of the methods already (the schema).
 */
export function checkWaiting<T extends Pick<Waiting, 'run' | 'status' | 'labels' | 'reviewers'>>(
  waiting: T,
  bounds: RecordBounds,
): { waiting: T; refused?: Refused } {
  const sound = { ...waiting };
  const refused: Refused = { labels: [], reviewers: [] };
  const { status } = waiting;
  if (status) {
    const why =
      status.context !== bounds.context
        ? 'context'
        : bounds.commits.includes(status.sha)
          ? undefined
          : 'commit';
    if (why) {
      refused.status = { ...status, why };
      delete sound.status;
    }
  }
  const asInput = (name: string) => name !== '' && name === name.trim() && !name.includes(',');
  const names = (key: 'labels' | 'reviewers', passes: (name: string) => boolean) => {
    const given = waiting[key];
    if (!given) return;
    const kept = given.filter((name) => asInput(name) && passes(name));
    refused[key] = given.filter((name) => !kept.includes(name));
    if (kept.length > 0) sound[key] = kept;
    else delete sound[key];
  };
  names('labels', (name) => badLabel(name, false) === undefined);
  names('reviewers', isReviewer);
  const any = refused.status || refused.labels.length + refused.reviewers.length > 0;
  return any ? { waiting: sound, refused } : { waiting: sound };
}

/**
 * The warning for what a record of job `jobId` (left at work by run `run`) asked and was refused:
 * every piece of the record's text quoted, so none of it can start a workflow command or read as
 * the log's own words.
 */
export function refusedWarning(jobId: string, run: number, refused: Refused, context: string): string {
  const parts: string[] = [];
  const { status } = refused;
  if (status?.why === 'context')
    parts.push(
      `its commit status in the context ${quote(status.context, 100)}, which is not this step's (${quote(context, 100)})`,
    );
  if (status?.why === 'commit')
    parts.push(
      `its commit status on ${label(status.sha.slice(0, 12))}, a commit that carries no status of this step for that job`,
    );
  const listed = (names: string[]) => names.map((name) => quote(name, 60)).join(', ');
  if (refused.labels.length > 0)
    parts.push(`the labels ${listed(refused.labels)}, which the labels input would refuse`);
  if (refused.reviewers.length > 0)
    parts.push(`the reviewers ${listed(refused.reviewers)}, which the reviewers input would refuse`);
  return `The record of agent job ${label(jobId)}, which run ${run} left at work, asks for what this step would not do; left out: ${parts.join('; ')}.`;
}
