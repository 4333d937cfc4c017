// The system clock's sleep: it ends on time or with the signal's reason, and leaves no timer behind.
import { describe, expect, it } from '@jest/globals';
import { systemClock } from '../src/core/clock.js';

describe('systemClock', () => {
  it('sleeps, then resolves', async () => {
    const before = systemClock.now();
    await expect(systemClock.sleep(5)).resolves.toBeUndefined();
    expect(systemClock.now()).toBeGreaterThanOrEqual(before);
  });

  it("rejects with the signal's reason when it aborts, before or during the sleep", async () => {
    const reason = new Error('cancelled by SIGINT');
    await expect(systemClock.sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });
});
