// `budget`: the most quota uses one pull request's or issue's thread may spend over its life, held
// to the total its note keeps (src/github/note.ts). A branch pushed to directly has no note: its
// job, and the uses that job has spent, are kept in this step's commit status on the branch
// (src/github/status.ts), so there the budget is held to each job's count — the life of each docs
// pull request: a new job (its docs PR merged or closed) starts again from nothing.
import type { Log } from '../core/log.js';
import { onlyWaits, type Mode } from '../core/mode.js';
import type { Memory } from '../core/ports.js';
import { label } from '../core/untrusted.js';

/** A run that would send, stopped at the budget: its notice, its word on the thread (none on a branch), its status. */
export interface Spent {
  notice: string;
  answer?: string;
  status: string;
}

/**
 * Whether the thread's budget is spent for a run that would send (a create or a follow-up): the
 * words that stop it, else `undefined`. A run that only waits spends nothing and always goes on.
 */
export function budgetSpent(
  budget: number | undefined,
  mode: Mode,
  memory: Memory,
  log: Log,
): Spent | undefined {
  if (budget === undefined || onlyWaits(mode)) return undefined;
  const uses = budget === 1 ? '1 quota use' : `${budget} quota uses`;
  const status = `Budget of ${uses} spent (raise budget to go on)`;
  if (memory.note) {
    const spent = memory.note.uses ?? 0;
    if (spent < budget) return undefined;
    const sentence = `The budget of ${uses} for this thread is spent (${spent} used): raise budget to go on.`;
    return {
      notice: `Skipped: ${sentence} Nothing was sent.`,
      answer: sentence.replace('raise budget', 'raise `budget` in the workflow'),
      status,
    };
  }
  // A first run has spent nothing yet; a create is a new job, whose count starts again.
  const { branch } = memory;
  if (!branch || mode.kind !== 'follow-up' || mode.jobId !== branch.job) return undefined;
  if (branch.uses === undefined) {
    log.warning(
      `The quota uses agent job ${label(branch.job)} of the branch has spent are not known (its commit status holds no count: written without budget, or by an earlier version), so budget counts them from this run on.`,
    );
    return undefined;
  }
  if (branch.uses < budget) return undefined;
  return {
    notice: `Skipped: the budget of ${uses} for agent job ${label(branch.job)}, which keeps this branch's docs pull request, is spent (${branch.uses} used): raise budget, or merge or close that docs pull request to start a new job. Nothing was sent; a branch has no thread comment to say so on.`,
    status,
  };
}
