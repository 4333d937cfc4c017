import * as core from '@actions/core';
import { redact } from './secrets.js';

/** Where the action's lines go: `@actions/core` in the action, a recorder in tests. */
export interface Log {
  info(message: string): void;
  notice(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
}

/** The runner's log, as the action writes it. */
export const coreLog: Log = {
  info: (message) => core.info(message),
  notice: (message) => core.notice(message),
  warning: (message) => core.warning(message),
  debug: (message) => core.debug(message),
};

/**
 * Fails the step: its one `::error::` line, and a process that ends non-zero. @actions/core's
 * setFailed sets the exit code itself; GitHub's local runner (@github/local-action) puts a stand-in
 * in its place that only records the failure, and there the process would end 0.
 */
export function failStep(message: string): void {
  core.setFailed(message);
  process.exitCode = 1;
}

/** Where a part that only warns sends its one line (GitHub faults, a prLink left out). */
export type Warn = (message: string) => void;

/**
 * Words for a value that may not be an Error at all (a thrown string, null…), without a closing
 * period, so it can go inside a sentence.
 */
export function describeThrown(thrown: unknown): string {
  let text: string;
  if (thrown instanceof Error) text = thrown.message;
  else if (typeof thrown === 'string') text = thrown;
  else {
    try {
      text = JSON.stringify(thrown) ?? String(thrown);
    } catch {
      text = String(thrown);
    }
  }
  return redact(text).replace(/\.$/, '');
}
