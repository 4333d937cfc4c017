// The budget's rule, alone: only a run that would send is held to it, only a thread's note keeps
// a total, and a branch pushed to directly (no note) is warned about, not stopped.
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

  it('is not applied on a branch pushed to directly, with a warning that says so', () => {
    const { log, warnings } = collecting();
    const branch = { job: 'job-1', run: 1, since: 'a'.repeat(40) };
    expect(budgetSpent(1, followUp, { branch }, log)).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringContaining('budget is not applied on a branch pushed to directly'),
    ]);
  });
});
