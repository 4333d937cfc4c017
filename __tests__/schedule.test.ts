import { describe, expect, it } from '@jest/globals';
import { PollSchedule } from '../src/execute/schedule.js';

const middle = () => 0.5; // no jitter

function take(schedule: PollSchedule, n: number): number[] {
  return Array.from({ length: n }, () => schedule.next());
}

describe('PollSchedule', () => {
  it('starts at pollInterval and grows 1.5× up to 60 s', () => {
    expect(take(new PollSchedule(10_000, middle), 8)).toEqual([
      10_000, 15_000, 22_500, 33_750, 50_625, 60_000, 60_000, 60_000,
    ]);
  });

  it('caps at pollInterval when that is above 60 s', () => {
    expect(take(new PollSchedule(90_000, middle), 3)).toEqual([90_000, 90_000, 90_000]);
  });

  it('jitters each wait by at most ±10 %', () => {
    expect(take(new PollSchedule(10_000, () => 0), 2)).toEqual([9_000, 13_500]);
    expect(take(new PollSchedule(10_000, () => 0.999_999), 2)).toEqual([11_000, 16_500]);
  });

  it('jitter does not compound: the base keeps growing from the un-jittered value', () => {
    const low = take(new PollSchedule(10_000, () => 0), 10);
    expect(low.at(-1)).toBe(54_000);
  });

  it('spends about 35 requests on a 30-minute job', () => {
    const schedule = new PollSchedule(10_000, Math.random);
    let elapsed = 0;
    let polls = 0;
    while (elapsed < 30 * 60_000) {
      elapsed += schedule.next();
      polls++;
    }
    expect(polls).toBeGreaterThanOrEqual(30);
    expect(polls).toBeLessThanOrEqual(38);
  });
});
