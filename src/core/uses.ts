// What a thread has spent of the service's quota: each run's accepted create or follow-up is one
// use. The total is kept in the thread's note, with each recent run's own count beside its entry,
// so a note written twice by one run (its first post, its last word) counts that run once.
import type { RunEntry } from './ports.js';

/** The thread's total once this run's uses are in: what earlier runs recorded, this run's counted once. */
export function threadUses(
  before: { uses?: number; runs?: RunEntry[] } | undefined,
  run: { run: number; attempt: number; uses: number },
): number {
  const counted =
    before?.runs?.find((entry) => entry.run === run.run && entry.attempt === run.attempt)?.uses ?? 0;
  return Math.max(0, (before?.uses ?? 0) - counted) + run.uses;
}

/**
 * The line that shows it. Whether the service counts a message it refused is not documented: the
 * line counts none, and says so.
 */
export function usesLine(total: number): string {
  return `Quota uses on this thread: ${total} (accepted creates and follow-ups; whether a refused one counts is not documented)`;
}
