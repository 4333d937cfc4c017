import type { Log } from '../src/core/log.js';

/** A `Log` that keeps every line, prefixed with its level (`info: …`); debug lines are dropped. */
export function recorder(): Log & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info: ${m}`),
    notice: (m) => lines.push(`notice: ${m}`),
    warning: (m) => lines.push(`warning: ${m}`),
    debug: () => undefined,
  };
}

/** What the GitHub side says of each write (the comment, a status, labels, a reaction, reviewers, auto-merge). */
const WRITES =
  /^info: (Posted the comment|Updated the comment|Set the commit status|Labelled |Took the label|Reacted |Asked for reviews|Enabled auto-merge)/;

/** The lines but those that say what was written: for a test about something else. */
export function withoutWrites(lines: string[]): string[] {
  return lines.filter((line) => !WRITES.test(line));
}
