// A thread's job left at work by a run that did not wait (`wait: false`), as the thread's record
// keeps it, and how it stands when a later run reads it. The rules of what a run changes in it are
// the ledger's (src/core/ledger.ts).
import type { AgentJob } from './job.js';

/** How `autoMerge` merges the docs pull request. */
export type MergeMethod = 'merge' | 'squash' | 'rebase';

/**
 * A thread's job left at work by a run that did not wait (`wait: false`): whichever run comes
 * first — the thread's next run, or a report run — writes its end as the starting run asked; what
 * the thread asked meanwhile is sent only by a run of the thread's lane.
 */
export interface Waiting {
  /** The run that sent and ended, and when it ended (ms since the epoch). */
  run: number;
  at: number;
  /** Past `at` by this much (the starting run's `timeout`, ms), a job still at work is overdue. */
  timeout: number;
  /**
   * Whose job it is (`projectKey` of the service's URL and the project): a run of another project
   * never reads it. Records of earlier versions have none.
   */
  project?: string;
  /** The thread says the job is overdue (its status failed); the job's real end replaces that. */
  overdue?: true;
  /** The job's end is written; what the thread asked meanwhile is still owed, for its lane to send. */
  ended?: true;
  /** The commit status left `pending`: its commit and context, where its end goes. */
  status?: { sha: string; context: string };
  /** What the starting run asked of the docs pull request. */
  labels?: string[];
  reviewers?: string[];
  autoMerge?: MergeMethod;
  /** The starting run kept the docs PR a draft until the code pull request merges (`draft`). */
  draft?: true;
  /** The `/docs` requests queued while the job works (their comments' ids), for the thread's lane to send. */
  queued?: number[];
  /**
   * The pull request merged while the job worked (its merge's run was held): the merge is owed, for
   * the thread's lane to send as the merge's run would have. Told by the record, not guessed from
   * the head: a merge's run may have started the job itself, on the same head.
   */
  merge?: true;
  /**
   * `/docs` was asked on the thread's docs pull request (this URL) while the job worked: the
   * thread's lane reads the requests there once the job's end is written.
   */
  docs?: string;
}

/**
 * How a waiting job stands when a run reads it: still at work; at work past its run's `timeout`
 * (`overdue`: the thread is told once, and waits on); `ended`; unknown to the service (`lost`); or
 * its end already `written` by another run (only what was owed is left).
 */
export type WaitingEnd =
  | { kind: 'at-work' }
  | { kind: 'ended'; job: AgentJob }
  | { kind: 'overdue'; job: AgentJob }
  | { kind: 'lost' }
  | { kind: 'written' };

/** A waiting job's end, or its overdue mark: what a run writes on the thread. */
export type WaitingNews = Exclude<WaitingEnd, { kind: 'at-work' } | { kind: 'written' }>;
