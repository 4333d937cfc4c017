// What a thread keeps on GitHub between runs, as the core reads it: the note in the action's own
// comment (a pull request's or an issue's thread) and what a commit status of this step says (a
// branch's). github/note.ts and github/status.ts write and read them back, checked as input.
import type { Waiting } from './waiting-record.js';

/** One run's job, as the thread's note keeps it. */
export interface RunEntry {
  run: number;
  attempt: number;
  job: string;
  /** The quota uses this run (and attempt) spent, when it spent any: counted once in the total. */
  uses?: number;
}

/** What a thread remembers between runs, kept in the action's own comment (see github/note.ts). */
export interface ThreadNote {
  job: string;
  /** The head commit the job last saw; absent when no run on the thread knew one. */
  head?: string;
  /** The run (and attempt) that last moved the thread's job and head. */
  run: number;
  attempt: number;
  /** The jobs the service confirmed to the thread's recent runs, newest run first. */
  runs?: RunEntry[];
  /** The quota uses the thread's runs spent (accepted creates and follow-ups), when any. */
  uses?: number;
  /** The docs PR `job` opened, as a run read the job: only one so held is closed as superseded. */
  docsPr?: string;
  /**
   * Docs pull requests that jobs the thread has left (a follow-up refused outright) opened, as the
   * record held them, to close once the thread's job has a docs pull request of its own; newest last.
   */
  superseded?: string[];
  /** The thread's `/docs` requests: which are settled (sent, or refused), by which run. */
  requests?: RequestLedger;
  /**
   * The `/docs` requests asked on the thread's docs pull request (`pr`: `owner/repo#number`, lower
   * case; its comments' ids are of the same series, but another pull request's floor is not its).
   */
  docs?: { pr: string; requests: RequestLedger };
  /**
   * The preview of the job's docs pull request (an https URL a successful deployment of it named),
   * once a run of the thread's lane read it: shown in the comment, the `previewUrl` output.
   */
  preview?: string;
  /** The thread's job, left at work by a run that did not wait: what reporting its end needs. */
  waiting?: Waiting;
  /**
   * The run whose send told the thread's job its pull request's merge: the merge's other event
   * (its `closed` and its merge commit's push both come) finds it told and sends nothing.
   */
  merged?: number;
  /**
   * Written by earlier versions, read only to start `requests` from: each run's requests' comment
   * ids lay in `(after, upTo]`, every request at or below the highest `upTo` delivered.
   */
  delivered?: Delivery[];
}

/** The requests one run delivered, as earlier versions recorded them: comment ids above `after`, up to `upTo`. */
export interface Delivery {
  run: number;
  after: number;
  upTo: number;
}

/**
 * A thread's `/docs` requests (issue comments, by id): every request at or below `floor` is
 * settled; above it, those a recent run `settled` — sent in a send the service accepted, or
 * `refused` (their author may not ask, and was told) — are; any other request is still owed.
 */
export interface RequestLedger {
  floor: number;
  /** Newest run first. */
  settled: { run: number; ids: number[]; refused?: true }[];
}

/** What a commit status of this step says: the job (when it names one) and the run that wrote it. */
export interface StatusNote {
  job?: string;
  run: number;
  /**
   * The status names the thread's job, but the run that wrote it sent nothing (a skip: a push held
   * back, `paths`, nothing new, the budget): a re-run of that run resumes nothing from it.
   */
  held?: true;
  /** The status is a completed job's, linking its docs pull request: a skip never replaces it. */
  linked?: true;
  /** The docs PR a completed job's status links (its target): a branch's record that the job opened it. */
  docsPr?: string;
  /** A branch's job at work: the docs PR (`owner/repo#N`) an earlier job left, to close once it has its own. */
  supersedes?: string;
  /** A run that did not wait left the job at work (`wait: false`): its end is still to be written here. */
  goesOn?: true;
  /** The named job's end (completed, failed, archived, lost): no run writes over it. */
  ended?: true;
  /** The named job was still at work past its run's `timeout`: not an end, its real end replaces it. */
  overdue?: true;
  /**
   * On a branch pushed to directly, with `budget`: the quota uses the named job has spent, this
   * run's included. Absent where the status holds no count (written without `budget`, or before
   * counts were kept): then it is not known.
   */
  uses?: number;
}
