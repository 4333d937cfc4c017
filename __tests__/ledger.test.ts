// The thread's ledger as plain values (src/core/ledger.ts): where a note's record of requests
// starts, what a run settles (only what its accepted send carried, and what it refused), how far
// the floor rises (never past a request still owed or one the run did not read), its bounds, and
// the next note (the job and head forward only, uses counted once a run), encoded and read back;
// and a branch's count of its job's uses, which its commit status keeps.
import { describe, expect, it } from '@jest/globals';
import {
  branchUses,
  nextLedger,
  open,
  requestLedger,
  settle,
  settled,
  SETTLED_IDS,
  standing,
  threadUses,
} from '../src/core/ledger.js';
import type { Carried, ThreadNote } from '../src/core/ports.js';
import { noteLine, readNote } from '../src/github/note.js';

const note = (more: Partial<ThreadNote> = {}): ThreadNote => ({
  job: 'job-1',
  run: 100,
  attempt: 1,
  ...more,
});

describe('branchUses', () => {
  const branch = { job: 'job-1', run: 90, since: 'a'.repeat(40) };
  it("adds this run's uses to what the branch's last status counted for the same job", () => {
    expect(branchUses({ branch: { ...branch, uses: 2 } }, 'job-1', 1)).toBe(3);
    expect(branchUses({ branch: { ...branch, uses: 2 } }, 'job-1', 0)).toBe(2);
  });

  it("a re-run counts from its earlier attempt's status on this commit, not again from the branch's", () => {
    const status = { job: 'job-1', run: 100, uses: 3 };
    expect(branchUses({ status, branch: { ...branch, uses: 2 } }, 'job-1', 0)).toBe(3);
  });

  it('a new job starts again from this run’s uses', () => {
    expect(branchUses({ branch: { ...branch, uses: 5 } }, 'job-2', 1)).toBe(1);
  });

  it('a count never kept stays unknown on a run that spent nothing, and starts from this run’s send otherwise', () => {
    expect(branchUses({ branch }, 'job-1', 0)).toBeUndefined();
    expect(branchUses({ branch }, 'job-1', 1)).toBe(1);
  });
});

describe('requestLedger', () => {
  it('starts a new thread with nothing settled: a request made before its first run had no run that sent it', () => {
    expect(requestLedger(undefined, 50)).toEqual({ floor: 0, settled: [] });
  });

  it('reads a note of an earlier version: up to its highest delivery, else up to the kept comment', () => {
    expect(
      requestLedger(
        note({
          delivered: [
            { run: 3, after: 9, upTo: 14 },
            { run: 2, after: 5, upTo: 9 },
          ],
        }),
        50,
      ),
    ).toEqual({ floor: 14, settled: [] });
    expect(requestLedger(note({ delivered: [] }), 50)).toEqual({ floor: 50, settled: [] });
    expect(requestLedger(note(), 50)).toEqual({ floor: 50, settled: [] });
  });

  it('keeps a note of this version as it is', () => {
    const requests = { floor: 7, settled: [{ run: 9, ids: [9] }] };
    expect(requestLedger(note({ requests, delivered: [{ run: 1, after: 0, upTo: 99 }] }), 50)).toBe(requests);
  });
});

describe('settle and settled', () => {
  const carried = (more: Partial<Carried> = {}): Carried => ({
    ledger: { floor: 10, settled: [] },
    sent: [12, 15],
    refused: [13],
    owed: [14],
    readUpTo: 16,
    requests: [],
    ...more,
  });

  it('settles what an accepted send carried and what it refused; the floor stops below what is still owed', () => {
    const after = settled(carried(), 200, true);
    expect(after).toEqual({
      floor: 13,
      settled: [
        { run: 200, ids: [12, 15] },
        { run: 200, ids: [13], refused: true },
      ],
    });
    // 16 was read and is no request; 17 was not read.
    expect(open(after, [11, 12, 13, 14, 15, 17])).toEqual([14, 17]);
    expect(standing(after, 15)).toEqual({ settled: true, run: 200 });
    expect(standing(after, 13)).toEqual({ settled: true, run: 200, refused: true });
    expect(standing(after, 11)).toEqual({ settled: true });
  });

  it('settles nothing a send the service did not accept carried (a 429, a refusal, a fault)', () => {
    const after = settled(carried(), 200, false);
    expect(open(after, [12, 13, 14, 15])).toEqual([12, 14, 15]);
    expect(after.floor).toBe(11);
  });

  it('never raises the floor past comments the run did not read', () => {
    const unread = carried({ owed: [] });
    delete unread.readUpTo;
    const after = settled(unread, 200, true);
    expect(after.floor).toBe(10);
    expect(open(after, [11, 12, 16])).toEqual([11, 16]);
  });

  it('keeps one entry a run however often it writes, and stays within its bounds', () => {
    let ledger = settle({ floor: 0, settled: [] }, 5, { sent: [3], refused: [], owed: [1] });
    ledger = settle(ledger, 5, { sent: [4], refused: [], owed: [1] });
    expect(ledger.settled).toEqual([{ run: 5, ids: [3, 4] }]);
    // A request owed forever (its author never told about) holds the floor: past the bound of
    // ids kept above it, the oldest runs' requests fold into the floor.
    for (let run = 10; run < 400; run++)
      ledger = settle(ledger, run, { sent: [run], refused: [], owed: [1], readUpTo: run });
    expect(ledger.settled.reduce((n, e) => n + e.ids.length, 0)).toBeLessThanOrEqual(SETTLED_IDS);
    expect(open(ledger, [399, 398])).toEqual([]);
    const line = noteLine(nextLedger(undefined, { job: 'job-1', run: 400, attempt: 1, requests: ledger }));
    expect(readNote(line)?.requests).toEqual(ledger);
  });
});

describe('nextLedger', () => {
  it('keeps a job waiting to be reported until a run reports its end, and only while it is the thread’s job', () => {
    const waiting = { run: 101, at: 1_700_000_000_000, timeout: 3_600_000, labels: ['docs'] };
    const left = nextLedger(note(), { job: 'job-1', run: 101, attempt: 1, uses: 1, waiting });
    expect(left.waiting).toEqual(waiting);
    // A run that writes the note without a word on it (a request read, a re-run) keeps it.
    expect(nextLedger(left, { job: 'job-1', run: 102, attempt: 1 }).waiting).toEqual(waiting);
    // The run that saw the end clears it; a new job of the thread is no one's wait.
    expect(nextLedger(left, { job: 'job-1', run: 102, attempt: 1, waiting: null }).waiting).toBeUndefined();
    expect(nextLedger(left, { job: 'job-2', run: 102, attempt: 1 }).waiting).toBeUndefined();
    // A re-run of an older run leaves the newer run's record as it was.
    expect(nextLedger(left, { job: 'job-1', run: 99, attempt: 2, waiting: null }).waiting).toEqual(waiting);
    // And it survives the note's own encoding.
    expect(readNote(noteLine(left))?.waiting).toEqual(waiting);
  });

  it('records which run told the job its merge, while that job is the thread’s', () => {
    const told = nextLedger(note(), { job: 'job-1', run: 102, attempt: 1, uses: 1, merged: true });
    expect(told.merged).toBe(102);
    // A later run that writes the note (a request sent after the merge) keeps it.
    expect(nextLedger(told, { job: 'job-1', run: 103, attempt: 1, uses: 1 }).merged).toBe(102);
    // A new job of the thread was not told.
    expect(nextLedger(told, { job: 'job-2', run: 103, attempt: 1, uses: 1 }).merged).toBeUndefined();
    expect(readNote(noteLine(told))?.merged).toBe(102);
  });

  it('counts a run’s uses once however often it writes, and keeps the requests a run settled', () => {
    const before = nextLedger(undefined, { job: 'job-1', run: 41, attempt: 1, uses: 1 });
    expect(before.requests).toEqual({ floor: 0, settled: [] });
    const once = nextLedger(before, { job: 'job-1', run: 42, attempt: 1, uses: 1 });
    expect(nextLedger(once, { job: 'job-1', run: 42, attempt: 1, uses: 1 }).uses).toBe(2);
    expect(threadUses(once, { run: 42, attempt: 2, uses: 1 })).toBe(3);
    const requests = { floor: 3, settled: [{ run: 43, ids: [5] }] };
    const asked = nextLedger(once, { job: 'job-1', run: 43, attempt: 1, uses: 1, requests });
    expect(asked.requests).toBe(requests);
    expect(nextLedger(asked, { job: 'job-1', run: 44, attempt: 1 }).requests).toBe(requests);
  });

  it('moves the job and head forward only, and drops an earlier version’s record once it has its own', () => {
    const newer = nextLedger(
      note({ run: 50, head: 'a'.repeat(40), delivered: [{ run: 50, after: 1, upTo: 4 }] }),
      {
        job: 'job-0',
        head: 'b'.repeat(40),
        run: 40,
        attempt: 2,
      },
    );
    expect(newer).toMatchObject({ job: 'job-1', head: 'a'.repeat(40), run: 50, requests: { floor: 4 } });
    expect(newer.delivered).toBeUndefined();
  });
});
