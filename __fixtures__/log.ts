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
