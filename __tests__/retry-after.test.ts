import { describe, expect, it } from '@jest/globals';
import { parseRetryAfter } from '../src/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads seconds', () => expect(parseRetryAfter('7', now)).toBe(7000));
  it('reads an HTTP date', () => expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000));
  it('never says less than 1 s, so a service cannot make a burst of requests', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(1000);
    expect(parseRetryAfter('0', now)).toBe(1000);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
  });
});
