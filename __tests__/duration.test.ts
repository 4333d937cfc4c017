import { describe, expect, it } from '@jest/globals';
import { formatDuration, parseDuration } from '../src/core/duration.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h0m5s', 3_605_000],
    ['2m30s', 150_000],
    ['45', 45_000],
    ['0', 0],
    ['10S', 10_000],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '1.5h', '-5s', '10 m', '5d', 'm', 'h1', '30m1h', '1e3', '10sec', '0x10'])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [400, '0s'],
    [90_000, '1m 30s'],
    [3_600_000, '1h'],
    [5_405_000, '1h 30m 5s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
