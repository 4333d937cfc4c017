/**
 * The poll schedule (docs/design.md §3.3): the first wait is `pollInterval`, each next one 1.5× the one
 * before, capped at 60 s (or at `pollInterval` when that is larger), each with ±10 % jitter so that
 * many workflows started by the same cron do not poll in step. A 30-minute job costs about 35
 * requests instead of 180 at a fixed 10 s.
 */
const GROWTH = 1.5;
const CAP_MS = 60_000;
const JITTER = 0.1;

export class PollSchedule {
  private base: number;
  private readonly cap: number;
  private started = false;

  /** `random` returns [0, 1), like `Math.random`; tests inject a fixed one. */
  constructor(
    firstMs: number,
    private readonly random: () => number = Math.random,
  ) {
    this.base = firstMs;
    this.cap = Math.max(CAP_MS, firstMs);
  }

  /** The next wait in milliseconds. */
  next(): number {
    if (this.started) this.base = Math.min(this.base * GROWTH, this.cap);
    this.started = true;
    return Math.round(this.base * (1 + JITTER * (2 * this.random() - 1)));
  }
}
