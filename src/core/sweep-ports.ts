// The ports of a run outside the three steps' own: what a report run and a thread's lane run ask
// of GitHub (the waiting threads, a thread's records, hand-offs, the docs PR's requests and
// preview), and the GitHub side of one run as a whole. In the core's own types, as ports.ts is.
import type { DecideReads, DocsAsks, ExecuteWrites, ReportWrites, ThreadNote, WaitingNews } from './ports.js';

export type { DocsAsks };

/** A thread whose job a run left at work and no run has reported, as a report run finds it. */
export interface FoundWaiting {
  number: number;
  pull: boolean;
  note: ThreadNote;
  /** The first line of the kept comment that holds the record: which step's it is. */
  marker: string;
  /** The record is this step's own (its marker is the step's thread marker). */
  own: boolean;
  /** The newest of the requests queued while the job worked (`note.waiting.queued`), as GitHub has it. */
  lastQueued?: { id: number; body: string; login: string; bot: boolean };
}

/** A branch's job left at work: the commits whose status in this action's name still waits for its end. */
export interface BranchWaiting {
  job: string;
  /** The run that left it (the newest status's). */
  run: number;
  /**
   * Each commit and context whose status is pending; `at`: when GitHub says it was written (ms);
   * `supersedes`, the docs pull request an earlier job left that the status names.
   */
  pending: { sha: string; context: string; at?: number; supersedes?: string }[];
  /** Its statuses say it is overdue already (marked once; its real end replaces the mark). */
  overdue?: true;
}

/** A report run's (`sweep`) GitHub side. */
export interface SweepSide {
  /** Every thread of the repository whose record still waits (its job's end to write, or what it is owed to send). Faults throw. */
  waiting(signal: AbortSignal): Promise<FoundWaiting[]>;
  /** One thread's records that still wait (a lane run's thread). Faults throw. */
  thread(number: number, signal: AbortSignal): Promise<{ pull: boolean; found: FoundWaiting[] }>;
  /**
   * Starts the thread's lane run (a `workflow_dispatch` naming it), to send what it is owed;
   * `false`, with a warning, when GitHub refused.
   */
  handOff(number: number, signal: AbortSignal, docsAsk?: string): Promise<boolean>;
  /**
   * The thread (its number, in this repository) that the docs pull request `link` names, as its
   * note of this action's own says; `undefined` (said why) where it names none. Faults throw.
   */
  docsThread(link: string, signal: AbortSignal): Promise<number | undefined>;
  /**
   * The requests on the docs pull request `link`, when its note names thread `number`;
   * `undefined`, with a warning, where it does not or cannot be read.
   */
  docsAsks(link: string, number: number, signal: AbortSignal): Promise<DocsAsks | undefined>;
  /**
   * A lane run's word that `/docs` was asked on the docs pull request `link` while the thread's job
   * works: the record owes it (so the run that writes the job's end hands the thread off again),
   * and the docs PR is told it waits; `false` when the record, read afresh, no longer waits for
   * that job (another run wrote its end meanwhile). Faults are warnings (`true`: nothing more).
   */
  oweDocs(found: FoundWaiting, link: string, signal: AbortSignal): Promise<boolean>;
  /**
   * A lane run's link to the preview of thread `number`'s docs pull request `link` in its kept
   * comment (the record's marker, else the step's own), once deployed: the preview the record now
   * holds. Faults are warnings.
   */
  linkPreview(
    thread: { number: number; pull: boolean; marker?: string },
    docs: { link: string; job: string },
    signal: AbortSignal,
  ): Promise<string | undefined>;
  /** The pull request of this repository that commit `sha` is the head of (a deployment's), as its page's URL. Faults throw. */
  pullOfCommit(sha: string, signal: AbortSignal): Promise<string | undefined>;
  /**
   * One thread's end, as the run that left its job at work asked (see `ReportWrites.waitingEnd`),
   * unless another run reported it meanwhile (`false`). Faults are warnings.
   */
  reportEnd(found: FoundWaiting, end: WaitingNews, signal: AbortSignal): Promise<boolean>;
  /**
   * A lane run's last word on what its thread's record owed, once its replay sent none of it (held
   * by `followUp`, `paths`, the budget, nothing new): the record owes nothing more (its requests
   * stay open in the request ledger, for a later send), and goes with its label once its end is
   * written, so report runs stop handing the thread off. Faults are warnings.
   */
  settleOwed(found: FoundWaiting, signal: AbortSignal): Promise<void>;
  /** The default branch's head, and its jobs left at work, as its newest commits' statuses say. Faults throw. */
  branchWaiting(signal: AbortSignal): Promise<{ head?: string; jobs: BranchWaiting[] }>;
  /** A branch's job's end on each of its pending statuses, and its docs pull request routed; faults are warnings. */
  reportBranchEnd(found: BranchWaiting, end: WaitingNews, signal: AbortSignal): Promise<void>;
  /** A pull request of this repository, as it is now: open or not, and its head. Faults throw. */
  pull(number: number, signal: AbortSignal): Promise<{ open: boolean; merged: boolean; head: string }>;
}

/** The GitHub side of one run: one port a step, over one session. */
export interface GitHubSteps {
  decide: DecideReads;
  execute: ExecuteWrites;
  report: ReportWrites;
  sweep: SweepSide;
  /** The run writes nothing more on GitHub: every connection the session opened is closed. */
  close(): Promise<void>;
}
