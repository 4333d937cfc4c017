// How a job that no run waited for stands when a later run reads it (src/core/waiting.ts): still at
// work, ended, at work past its run's timeout, or unknown to the service; and the thread's record
// once its end is reported.
import { describe, expect, it } from '@jest/globals';
import type { AgentJob } from '../src/core/job.js';
import type { ThreadNote } from '../src/core/ports.js';
import { reported, waitingEnd } from '../src/core/waiting.js';

const waiting = { run: 7, at: 1_000_000, timeout: 60_000 };
const job = (status: string): AgentJob => ({ id: 'job-1', status });

describe('waitingEnd', () => {
  it('a job at work within its timeout is still waited for; past it, overdue', () => {
    expect(waitingEnd(waiting, job('active'), 1_060_000)).toEqual({ kind: 'at-work' });
    expect(waitingEnd(waiting, job('active'), 1_060_001)).toEqual({ kind: 'overdue', job: job('active') });
  });

  it('a job that ended has ended, however late; one the service does not know is lost', () => {
    for (const status of ['completed', 'failed', 'archived'])
      expect(waitingEnd(waiting, job(status), 9_999_999)).toEqual({ kind: 'ended', job: job(status) });
    expect(waitingEnd(waiting, undefined, 0)).toEqual({ kind: 'lost' });
  });
});

describe('reported', () => {
  it('keeps the record but the wait', () => {
    const note: ThreadNote = { job: 'job-1', run: 7, attempt: 1, uses: 2, waiting };
    expect(reported(note)).toEqual({ job: 'job-1', run: 7, attempt: 1, uses: 2 });
    expect(note.waiting).toBe(waiting);
  });
});
