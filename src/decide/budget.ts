// `budget`: the most quota uses one pull request's or issue's thread may spend over its life,
// held to the total its note keeps (src/github/note.ts). A branch pushed to directly keeps its job
// in a commit status, which has no room for a total: there the budget cannot be counted.
import type { Log } from '../core/log.js';
import { onlyWaits, type Mode } from '../core/mode.js';
import type { Memory } from '../core/ports.js';

/** A run that would send, stopped at the budget: its notice, its word on the thread, its status. */
export interface Spent {
  notice: string;
  answer: string;
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
  if (!memory.note) {
    // Only a pull request's or issue's note keeps a total; a first run has none yet (0 spent).
    if (memory.branch)
      log.warning(
        'budget is not applied on a branch pushed to directly: its job is kept in a commit status, which holds no count of quota uses.',
      );
    return undefined;
  }
  const spent = memory.note.uses ?? 0;
  if (spent < budget) return undefined;
  const uses = budget === 1 ? '1 quota use' : `${budget} quota uses`;
  const sentence = `The budget of ${uses} for this thread is spent (${spent} used): raise budget to go on.`;
  return {
    notice: `Skipped: ${sentence} Nothing was sent.`,
    answer: sentence.replace('raise budget', 'raise `budget` in the workflow'),
    status: `Budget of ${uses} spent (raise budget to go on)`,
  };
}
