import type { Clock } from '../src/core/clock.js';

/** A clock whose sleeps return at once and move time forward; it records every sleep. */
export class VirtualClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public time = 1_700_000_000_000) {}
  now = (): number => this.time;
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.time += ms;
  };
}

/**
 * A clock whose time moves only when the test moves it: a sleep stays pending until `advance`
 * passes its time (or its signal aborts). For races between work in flight and a time budget.
 */
export class ManualClock implements Clock {
  private pending: { at: number; wake: () => void }[] = [];
  constructor(public time = 1_700_000_000_000) {}
  now = (): number => this.time;
  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const entry = {
        at: this.time + ms,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.pending = this.pending.filter((e) => e !== entry);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.push(entry);
    });

  /** Sleeps still pending. */
  get sleeping(): number {
    return this.pending.length;
  }

  /** Moves time on by `ms` and wakes every sleep that is due, then lets their callbacks run. */
  async advance(ms: number): Promise<void> {
    this.time += ms;
    const due = this.pending.filter((e) => e.at <= this.time);
    this.pending = this.pending.filter((e) => e.at > this.time);
    for (const entry of due) entry.wake();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
