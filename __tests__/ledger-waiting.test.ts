// The record of a job a run left at work without waiting (src/core/ledger.ts): how the job stands
// when a later run reads it; the record once a run wrote its end or its overdue mark (kept while
// requests are owed); requests owed; a record settled by the request ledger; whose project it is;
// what of a record read back is done: only what the step itself would have done.
import { describe, expect, it } from '@jest/globals';
import type { AgentJob } from '../src/core/job.js';
import type { ThreadNote } from '../src/core/ports.js';
import { parseCommands } from '../__fixtures__/runner.js';
import {
  checkWaiting,
  clearWaiting,
  nextLedger,
  owe,
  oweMerge,
  owes,
  ownProject,
  projectKey,
  refusedWarning,
  settleWaiting,
  tidy,
  waitingEnd,
} from '../src/core/ledger.js';

const waiting = { run: 7, at: 1_000_000, timeout: 60_000 };
const job = (status: string): AgentJob => ({ id: 'job-1', status });
const note = (extra: Partial<ThreadNote['waiting']> = {}): ThreadNote => ({
  job: 'job-1',
  run: 7,
  attempt: 1,
  uses: 2,
  requests: { floor: 100, settled: [] },
  waiting: { ...waiting, ...extra },
});

describe('waitingEnd', () => {
  it('a job at work within its timeout is still waited for; past it, overdue once, then waited for on', () => {
    expect(waitingEnd(waiting, job('active'), 1_060_000)).toEqual({ kind: 'at-work' });
    expect(waitingEnd(waiting, job('active'), 1_060_001)).toEqual({ kind: 'overdue', job: job('active') });
    expect(waitingEnd({ ...waiting, overdue: true }, job('active'), 9_999_999)).toEqual({ kind: 'at-work' });
  });

  it('a job that ended has ended, however late and after an overdue mark; one the service does not know is lost', () => {
    for (const status of ['completed', 'failed', 'archived']) {
      expect(waitingEnd(waiting, job(status), 9_999_999)).toEqual({ kind: 'ended', job: job(status) });
      expect(waitingEnd({ ...waiting, overdue: true }, job(status), 9_999_999)).toEqual({
        kind: 'ended',
        job: job(status),
      });
    }
    expect(waitingEnd(waiting, undefined, 0)).toEqual({ kind: 'lost' });
  });

  it('an end another run wrote is never written again, whatever the service says now', () => {
    for (const read of [job('completed'), job('active'), undefined])
      expect(waitingEnd({ ...waiting, ended: true }, read, 9_999_999)).toEqual({ kind: 'written' });
  });
});

describe('owing and settling', () => {
  it('owes the requests queued that the request ledger still has open', () => {
    expect(owes(note())).toBe(false);
    const owed = owe(owe(note(), 101), 102);
    expect(owed.waiting?.queued).toEqual([101, 102]);
    expect(owes(owed)).toBe(true);
    // Settled by a run that sent them: no longer owed.
    expect(owes({ ...owed, requests: { floor: 100, settled: [{ run: 9, ids: [101, 102] }] } })).toBe(false);
    // Queued again, it moves to the end, once.
    expect(owe(owed, 101).waiting?.queued).toEqual([102, 101]);
  });

  it("owes the merge its record keeps (the merge's run was held while the job worked) until a send replaces the record", () => {
    expect(oweMerge(note()).waiting).toEqual({ ...waiting, merge: true });
    expect(owes(oweMerge(note()))).toBe(true);
    // No record, nothing to keep it in.
    expect(oweMerge(clearWaiting(note()))).toEqual(clearWaiting(note()));
    // Its end written, the record stays while the merge is owed, whatever the requests.
    const ledger = { floor: 100, settled: [{ run: 9, ids: [101] }] };
    expect(tidy({ ...waiting, queued: [101], merge: true, ended: true }, ledger)).toEqual({
      ...waiting,
      merge: true,
      ended: true,
    });
    // The lane's run that sent the merge leaves its own record: the merge is no longer owed.
    const sent = nextLedger(oweMerge(note({ ended: true })), {
      job: 'job-1',
      run: 9,
      attempt: 1,
      uses: 1,
      waiting: { run: 9, at: 2_000_000, timeout: 60_000 },
    });
    expect(sent.waiting).toEqual({ run: 9, at: 2_000_000, timeout: 60_000 });
    expect(owes(sent)).toBe(false);
  });

  it('an end with nothing owed clears the record; with requests owed it keeps them, its end written', () => {
    const end = { kind: 'ended' as const, job: job('completed') };
    expect(settleWaiting(note(), end, false)).toEqual(clearWaiting(note()));
    expect(settleWaiting(note(), { kind: 'lost' }, false).waiting).toBeUndefined();
    const kept = settleWaiting(note({ queued: [101], overdue: true }), end, true);
    expect(kept.waiting).toEqual({ ...waiting, queued: [101], ended: true });
  });

  it('an overdue mark keeps the wait, whatever is owed', () => {
    const marked = settleWaiting(note(), { kind: 'overdue', job: job('active') }, false);
    expect(marked.waiting).toEqual({ ...waiting, overdue: true });
  });

  it('tidy drops what the ledger settled, and a written end with nothing left owed is done', () => {
    const ledger = { floor: 100, settled: [{ run: 9, ids: [101] }] };
    expect(tidy({ ...waiting, queued: [101, 102] }, ledger)).toEqual({ ...waiting, queued: [102] });
    expect(tidy({ ...waiting, queued: [101], ended: true }, ledger)).toBeUndefined();
    expect(tidy({ ...waiting, queued: [101] }, ledger)).toEqual(waiting);
  });

  it('the next note keeps an owed record until the run that sends its requests settles them', () => {
    const owedNote = { ...note({ queued: [101], ended: true as const }) };
    // A run whose send failed: the requests stay open, and so does the record.
    const failed = nextLedger(owedNote, { job: 'job-1', run: 8, attempt: 1 });
    expect(failed.waiting).toEqual({ ...waiting, queued: [101], ended: true });
    // The lane's run that sent them: the record is done.
    const sent = nextLedger(owedNote, {
      job: 'job-1',
      run: 9,
      attempt: 1,
      uses: 1,
      requests: { floor: 101, settled: [{ run: 9, ids: [101] }] },
    });
    expect(sent.waiting).toBeUndefined();
  });

  it('clearWaiting keeps the record but the wait', () => {
    const n = note();
    expect(clearWaiting(n)).toEqual({ job: 'job-1', run: 7, attempt: 1, uses: 2, requests: n.requests });
    expect(n.waiting).toEqual(waiting);
  });
});

describe('projects', () => {
  it("a record names its project by a key of the service's URL and the project; another project's is not read", () => {
    const key = projectKey('https://api.example.com/', 'docs-a');
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(projectKey('https://api.example.com', 'docs-a')).toBe(key);
    expect(projectKey('https://api.example.com', 'docs-b')).not.toBe(key);
    expect(ownProject({ ...waiting, project: key }, key, false)).toBe(true);
    expect(
      ownProject({ ...waiting, project: projectKey('https://api.example.com', 'docs-b') }, key, true),
    ).toBe(false);
    // A record of an earlier version names no project: only the step's own comment is taken as its own.
    expect(ownProject(waiting, key, true)).toBe(true);
    expect(ownProject(waiting, key, false)).toBe(false);
  });
});

describe('a record read back (checkWaiting)', () => {
  const OWN = 'docs agent: Docs / docs (proj_docs)';
  const HEAD = 'a'.repeat(40);
  const bounds = { context: OWN, commits: [HEAD] };
  const statusless = {
    ...waiting,
    labels: ['docs', 'needs review'],
    reviewers: ['octocat', 'acme/docs-team'],
    autoMerge: 'squash' as const,
  };
  const sound = { ...statusless, status: { sha: HEAD, context: OWN } };

  it('keeps a record that asks only what the step would do, and refuses nothing', () => {
    expect(checkWaiting(sound, bounds)).toEqual({ waiting: sound });
    expect(checkWaiting(waiting, { context: OWN, commits: [] })).toEqual({ waiting });
  });

  it("refuses a status in another context (a required check's name), whatever its commit", () => {
    const { waiting: kept, refused } = checkWaiting(
      { ...sound, status: { sha: HEAD, context: 'ci/required' } },
      bounds,
    );
    expect(kept).toEqual(statusless);
    expect(refused).toEqual({
      status: { sha: HEAD, context: 'ci/required', why: 'context' },
      labels: [],
      reviewers: [],
    });
    // Compared exactly: one space more is another context.
    const spaced = checkWaiting({ ...sound, status: { sha: HEAD, context: `${OWN} ` } }, bounds);
    expect(spaced.refused?.status?.why).toBe('context');
  });

  it("refuses a status on a commit GitHub does not say carries the step's status for the job", () => {
    const other = 'b'.repeat(40);
    const { waiting: kept, refused } = checkWaiting(
      { ...sound, status: { sha: other, context: OWN } },
      bounds,
    );
    expect(kept).toEqual(statusless);
    expect(refused?.status).toEqual({ sha: other, context: OWN, why: 'commit' });
    // Nothing vouched for: no commit is the thread's.
    expect(checkWaiting(sound, { context: OWN, commits: [] }).refused?.status?.why).toBe('commit');
  });

  it('drops the labels and reviewers the inputs would refuse, and keeps the rest', () => {
    const labels = [
      'docs',
      '\n::set-output name=prLink::https://evil.example',
      '::add-mask::x\r',
      '..',
      'x'.repeat(51),
      ' docs',
      'one,two',
      '',
      'ok\u202e',
    ];
    const reviewers = [
      'octocat',
      'acme/team/../../orgs',
      '../octocat',
      'acme/',
      'x'.repeat(101),
      'a b',
      '::error::x',
      'acme/docs',
    ];
    const { waiting: kept, refused } = checkWaiting({ ...waiting, labels, reviewers }, bounds);
    expect(kept).toEqual({ ...waiting, labels: ['docs'], reviewers: ['octocat', 'acme/docs'] });
    expect(refused).toEqual({ labels: labels.slice(1), reviewers: reviewers.slice(1, -1) });
  });

  it('keeps a label with a / (GitHub allows it, and the labels input takes it)', () => {
    expect(checkWaiting({ ...waiting, labels: ['area/docs'] }, bounds)).toEqual({
      waiting: { ...waiting, labels: ['area/docs'] },
    });
  });

  it('a label the labels input takes is kept, `::` and all: it cannot start a line of the log', () => {
    expect(checkWaiting({ ...waiting, labels: ['::error::x'] }, bounds)).toEqual({
      waiting: { ...waiting, labels: ['::error::x'] },
    });
  });

  it('leaves no labels or reviewers where none passes', () => {
    expect(checkWaiting({ ...waiting, labels: ['..'], reviewers: ['a/b/c'] }, bounds).waiting).toEqual(
      waiting,
    );
  });

  it("says what was refused on one line, every piece of the record's text quoted: none makes a workflow command", () => {
    const line = refusedWarning(
      'job-1',
      7,
      {
        status: { sha: 'c'.repeat(40), context: '\n::error::forged context', why: 'context' },
        labels: ['\n::add-mask::secret', '::set-output name=a::b'],
        reviewers: ['acme/team/\n::stop-commands::x'],
      },
      OWN,
    );
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toMatch(/^The record of agent job job-1, which run 7 left at work/);
    expect(line).toContain(
      `the context "\\u000a::error::forged context", which is not this step's ("${OWN}")`,
    );
    expect(line).toContain('the labels "\\u000a::add-mask::secret", "::set-output name=a::b"');
    expect(line).toContain('the reviewers "acme/team/\\u000a::stop-commands::x"');
    // Printed as an info line would be, it makes no workflow command.
    expect(parseCommands(line)).toEqual([]);
    const commit = refusedWarning(
      'job-1',
      7,
      { status: { sha: 'c'.repeat(40), context: OWN, why: 'commit' }, labels: [], reviewers: [] },
      OWN,
    );
    expect(commit).toContain(`its commit status on ${'c'.repeat(12)}, a commit that carries no status`);
  });
});
