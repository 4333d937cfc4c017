import { describe, expect, it } from '@jest/globals';
import { parseRetryAfter } from '../src/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads seconds', () => expect(parseRetryAfter('7', now)).toBe(7000));
  it('reads an HTTP date', () => expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000));
  it('treats a date in the past as no wait', () =>
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0));
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
  });
});
