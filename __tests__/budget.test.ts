// The budget's rule, alone: only a run that would send is held to it; a thread's note keeps its
// total; a branch pushed to directly holds a follow-up to its job to the count its commit status
// keeps (a new job starts again), and a count not known is said, and counted from this run.
import { describe, expect, it } from '@jest/globals';
import { budgetSpent } from '../src/decide/budget.js';
import type { Log } from '../src/core/log.js';
import type { Mode } from '../src/core/mode.js';

function collecting() {
  const warnings: string[] = [];
  const log: Log = { info: () => {}, notice: () => {}, debug: () => {}, warning: (m) => warnings.push(m) };
  return { log, warnings };
}
const followUp: Mode = { kind: 'follow-up', jobId: 'job-1' };
const note = { job: 'job-1', run: 1, attempt: 1, uses: 3 };

describe('budgetSpent', () => {
  it('stops a create or a follow-up once the total is at the budget, not before', () => {
    const { log } = collecting();
    expect(budgetSpent(4, followUp, { note }, log)).toBeUndefined();
    expect(budgetSpent(3, { kind: 'create', projectId: 'p' }, { note }, log)).toMatchObject({
      answer:
        'The budget of 3 quota uses for this thread is spent (3 used): raise `budget` in the workflow to go on.',
    });
    expect(budgetSpent(1, followUp, { note }, log)?.status).toBe(
      'Budget of 1 quota use spent (raise budget to go on)',
    );
  });

  it('lets a run that only waits go on, and a thread without a note (nothing spent yet)', () => {
    const { log, warnings } = collecting();
    expect(budgetSpent(1, { kind: 'resume', jobId: 'job-1' }, { note }, log)).toBeUndefined();
    expect(budgetSpent(1, followUp, {}, log)).toBeUndefined();
    expect(budgetSpent(undefined, followUp, { note }, log)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("on a branch pushed to directly, holds a follow-up to the branch's job to its count: a new job starts again", () => {
    const { log, warnings } = collecting();
    const branch = (uses: number) => ({ branch: { job: 'job-1', run: 1, since: 'a'.repeat(40), uses } });
    expect(budgetSpent(2, followUp, branch(1), log)).toBeUndefined();
    const spent = budgetSpent(2, followUp, branch(2), log);
    expect(spent).toEqual({
      notice:
        "Skipped: the budget of 2 quota uses for agent job job-1, which keeps this branch's docs pull request, is spent (2 used): raise budget, or merge or close that docs pull request to start a new job. Nothing was sent; a branch has no thread comment to say so on.",
      status: 'Budget of 2 quota uses spent (raise budget to go on)',
    });
    // No word on a thread: a branch has no comment to answer on.
    expect(spent).not.toHaveProperty('answer');
    // The branch's docs pull request was merged or closed: a create, whose count starts again.
    expect(budgetSpent(2, { kind: 'create', projectId: 'p' }, branch(5), log)).toBeUndefined();
    expect(budgetSpent(2, { kind: 'resume', jobId: 'job-1' }, branch(5), log)).toBeUndefined();
    expect(budgetSpent(1, followUp, {}, log)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("counts a branch job's uses from this run on when its status holds no count, and says so", () => {
    const { log, warnings } = collecting();
    const branch = { job: 'job-1', run: 1, since: 'a'.repeat(40) };
    expect(budgetSpent(1, followUp, { branch }, log)).toBeUndefined();
    expect(warnings).toEqual([
      'The quota uses agent job job-1 of the branch has spent are not known (its commit status holds no count: written without budget, or by an earlier version), so budget counts them from this run on.',
    ]);
  });
});
