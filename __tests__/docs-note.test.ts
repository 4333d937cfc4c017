// The note that names a docs pull request's thread (src/github/docs-note.ts), read back as input:
// only this action's identity's, only a thread of the run's own repository, a number GitHub could
// give and a job id the action could send.
import { describe, expect, it } from '@jest/globals';
import { docsNoteBody, namedThread } from '../src/github/docs-note.js';

const REPO = { owner: 'acme', repo: 'app' };
const BOT = 'github-actions[bot]';
const thread = { owner: 'acme', repo: 'app', number: 12, pull: true, fork: false };
const note = (body: string, login = BOT) => ({ body, login });

describe('namedThread', () => {
  it('reads the thread the note the action wrote names', () => {
    const body = docsNoteBody(thread, 'job_7f3 a', 'https://github.com');
    expect(body.split('\n')[0]).toBe('<!-- agent-job-docs-of acme/app#12 job job_7f3%20a -->');
    expect(body).toContain('<a href="https://github.com/acme/app/issues/12">acme/app#12</a>');
    expect(namedThread([note('looks good'), note(body)], BOT, REPO)).toBe(12);
    // The repository's name as GitHub folds case.
    expect(namedThread([note(body)], BOT, { owner: 'Acme', repo: 'App' })).toBe(12);
  });

  it('takes nothing another account wrote, or that names another repository, a number or job GitHub could not have', () => {
    const forged = docsNoteBody(thread, 'job_1', 'https://github.com');
    expect(namedThread([note(forged, 'octocat')], BOT, REPO)).toBeUndefined();
    const other = docsNoteBody({ ...thread, repo: 'other' }, 'job_1', 'https://github.com');
    expect(namedThread([note(other)], BOT, REPO)).toBeUndefined();
    for (const first of [
      '<!-- agent-job-docs-of acme/app#0 job job_1 -->',
      '<!-- agent-job-docs-of acme/app#99999999999 job job_1 -->',
      '<!-- agent-job-docs-of acme/app#12 job .. -->',
      '<!-- agent-job-docs-of acme/app#12 job %E0%A4%A -->',
      '<!-- agent-job-docs-of acme/app#12 -->',
    ])
      expect(namedThread([note(first)], BOT, REPO)).toBeUndefined();
  });
});
