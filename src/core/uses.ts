// How a thread's quota uses are said: each run's accepted create or follow-up is one use, and the
// thread's total is the ledger's (src/core/ledger.ts).

/**
 * The line that shows it. Whether the service counts a message it refused is not documented: the
 * line counts none, and says so.
 */
export function usesLine(total: number): string {
  return `Quota uses on this thread: ${total} (accepted creates and follow-ups; whether a refused one counts is not documented)`;
}
