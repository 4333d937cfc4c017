import type { Clock } from '../src/clock.js';

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
