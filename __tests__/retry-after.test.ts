import { describe, expect, it } from '@jest/globals';
import { MAX_STATED_WAIT_MS, parseRetryAfter, sensibleWait } from '../src/service/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads seconds', () => expect(parseRetryAfter('7', now)).toBe(7000));
  it('reads an HTTP date', () => expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000));
  it('reads a wait of up to a day', () => {
    expect(parseRetryAfter('10800', now)).toBe(3 * 3_600_000);
    expect(parseRetryAfter('86400', now)).toBe(MAX_STATED_WAIT_MS);
  });

  // Each of these would otherwise be a burst of requests (0, gone by) or a wait no one means.
  it.each([
    ['0', '0'],
    ['a date gone by', 'Sun, 22 Nov 2026 09:00:00 GMT'],
    ['now, as a date', 'Sun, 22 Nov 2026 10:00:00 GMT'],
    ['more than a day', '86401'],
    ['a number past any wait', '99999999999999999999'],
    ['a number that overflows', '9'.repeat(400)],
    ['a date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])('gives no wait for %s, so the caller backs off as without one', (_what, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    for (const value of ['soon', '-3', 'NaN', 'Infinity', '-Infinity', '1e3', '1.5', '', 'Sun, 99 Foo'])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('sensibleWait', () => {
  it('keeps a wait in the future of at most a day, whole milliseconds', () => {
    expect(sensibleWait(1)).toBe(1);
    expect(sensibleWait(1500.2)).toBe(1501);
    expect(sensibleWait(MAX_STATED_WAIT_MS)).toBe(MAX_STATED_WAIT_MS);
  });
  it.each([undefined, 0, -1, -Infinity, NaN, Infinity, MAX_STATED_WAIT_MS + 1])('drops %p', (ms) => {
    expect(sensibleWait(ms)).toBeUndefined();
  });
});
