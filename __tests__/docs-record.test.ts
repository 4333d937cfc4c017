// Which docs pull request a thread's record holds as its job's own (src/core/docs-record.ts): the
// link kept from the job as read, carried in the note while the job is the thread's, read back
// through the note's schema; a branch's, from its completed status's link; and the word a
// branch's status of a job at work carries to name the docs pull request an earlier job left.
import { describe, expect, it } from '@jest/globals';
import { docsPrOf, heldDocsPr, holdsDocsPr, withEndDocsPr } from '../src/core/docs-record.js';
import { nextLedger } from '../src/core/ledger.js';
import type { ThreadNote } from '../src/core/ports.js';
import { noteLine, readNote } from '../src/github/note.js';
import { JOB_WORDS, pullOfRef, readStatusNote, supersedingWord } from '../src/github/status.js';

const LINK = 'https://github.com/acme/docs/pull/7';
const note = (extra: Partial<ThreadNote> = {}): ThreadNote => ({
  job: 'job-1',
  run: 5,
  attempt: 1,
  ...extra,
});

describe('the docs pull request a record holds as its job’s', () => {
  it('is the job’s link when it is a pull request page, without a trailing slash; nothing else', () => {
    expect(docsPrOf({ prLink: LINK })).toBe(LINK);
    expect(docsPrOf({ prLink: `${LINK}/` })).toBe(LINK);
    expect(docsPrOf({ prLink: 'https://github.com/acme/docs/issues/7' })).toBeUndefined();
    expect(docsPrOf({ prLink: 'javascript:alert(1)' })).toBeUndefined();
    expect(docsPrOf({ prLink: null })).toBeUndefined();
    expect(docsPrOf(undefined)).toBeUndefined();
  });

  it('goes with its job in the next note: kept for the same job, dropped for another, read back', () => {
    const first = nextLedger(undefined, { job: 'job-1', run: 5, attempt: 1, docsPr: LINK });
    expect(first.docsPr).toBe(LINK);
    expect(nextLedger(first, { job: 'job-1', run: 6, attempt: 1 }).docsPr).toBe(LINK);
    expect(nextLedger(first, { job: 'job-2', run: 6, attempt: 1 }).docsPr).toBeUndefined();
    expect(readNote(noteLine(first))?.docsPr).toBe(LINK);
    // A record whose link is not a pull request page is no record.
    expect(readNote(noteLine({ ...first, docsPr: 'https://github.com/acme/docs' }))).toBeUndefined();
  });

  it('is held only for the job the record names, by the note or else the branch’s status', () => {
    const memory = { note: note({ docsPr: LINK }) };
    expect(heldDocsPr(memory, 'job-1')).toBe(LINK);
    expect(holdsDocsPr(memory, 'job-1', `${LINK}/`)).toBe(true);
    expect(holdsDocsPr(memory, 'job-1', 'https://github.com/acme/app/pull/7')).toBe(false);
    expect(holdsDocsPr(memory, 'job-2', LINK)).toBe(false);
    expect(holdsDocsPr({ note: note() }, 'job-1', LINK)).toBe(false);
    const branch = { branch: { job: 'job-1', run: 5, since: 'a'.repeat(40), docsPr: LINK } };
    expect(holdsDocsPr(branch, 'job-1', LINK)).toBe(true);
    expect(holdsDocsPr(branch, 'job-9', LINK)).toBe(false);
  });

  it('is recorded when a waited-for job ends with one', () => {
    const waiting = note({ waiting: { run: 5, at: 0, timeout: 60_000 } });
    const job = { id: 'job-1', status: 'completed' as const, prLink: LINK };
    expect(withEndDocsPr(waiting, { kind: 'ended', job }).docsPr).toBe(LINK);
    expect(withEndDocsPr(waiting, { kind: 'lost' }).docsPr).toBeUndefined();
  });
});

describe('a branch’s status of a job at work names the docs pull request it supersedes', () => {
  it('in the word of a job at work only, and reads back as that word', () => {
    const word = supersedingWord(JOB_WORDS.goesOn, 'acme/docs#1');
    expect(word).toBe('Goes on in the service, superseding acme/docs#1');
    expect(supersedingWord(JOB_WORDS.completed, 'acme/docs#1')).toBe(JOB_WORDS.completed);
    expect(supersedingWord(JOB_WORDS.goesOn, 'not a ref')).toBe(JOB_WORDS.goesOn);
    expect(readStatusNote(`${word}: job job-1 · run 9`)).toEqual({
      job: 'job-1',
      run: 9,
      supersedes: 'acme/docs#1',
      goesOn: true,
    });
    expect(
      readStatusNote(`${supersedingWord(JOB_WORDS.timedOut, 'acme/docs#1')}: job job-1 · run 9`),
    ).toEqual({ job: 'job-1', run: 9, supersedes: 'acme/docs#1', overdue: true });
    // Any other word that ends so is a skip's word, naming nothing superseded.
    expect(readStatusNote('Completed, superseding acme/docs#1: job job-1 · run 9')).toEqual({
      job: 'job-1',
      run: 9,
      held: true,
    });
    expect(pullOfRef('acme/docs#1')).toEqual({ owner: 'acme', repo: 'docs', number: 1 });
    expect(pullOfRef('acme/docs#0')).toBeUndefined();
  });
});
