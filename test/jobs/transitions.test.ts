import { describe, expect, it } from 'vitest';
import { JOB_EVENTS, JOB_STATUSES, transition } from '../../src/jobs/transitions.js';

// Every status × every event, written out: the allowed ones and where they lead; all others refused.
const ALLOWED: Record<string, string> = {
  'active+message': 'active',
  'active+archive': 'archived',
  'active+run_succeeded': 'completed',
  'active+run_failed': 'failed',
  'completed+message': 'active',
  'completed+archive': 'archived',
  'failed+message': 'active',
  'failed+archive': 'archived',
  'archived+archive': 'archived',
};

describe('job transitions', () => {
  for (const from of JOB_STATUSES) {
    for (const event of JOB_EVENTS) {
      const key = `${from}+${event}`;
      const expected = ALLOWED[key];
      it(`${from} --${event}--> ${expected ?? 'refused'}`, () => {
        const result = transition(from, event);
        if (expected) {
          expect(result).toEqual({ ok: true, status: expected });
        } else {
          expect(result.ok).toBe(false);
          expect(result.ok ? '' : result.reason).toMatch(/\w/);
        }
      });
    }
  }

  it('covers exactly four statuses and four events', () => {
    expect([...JOB_STATUSES].sort()).toEqual(['active', 'archived', 'completed', 'failed']);
    expect(JOB_EVENTS).toHaveLength(4);
  });
});
