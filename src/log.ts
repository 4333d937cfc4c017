import { redact } from './secrets.js';

/** Where the action's lines go: `@actions/core` in the action, a recorder in tests. */
export interface Log {
  info(message: string): void;
  notice(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
}

/**
 * Text from the service (error messages, job fields) is untrusted. Printed raw, a reply such as
 * "\n::add-mask::…" or "::stop-commands::x" would become a workflow command, because the runner
 * reads every line of stdout and stderr whose trimmed start is `::`. `quote()` makes it inert: one
 * line, control and line-breaking characters escaped, shortened, and wrapped in quotes so no
 * command can start where it starts.
 */
const MAX_UNTRUSTED = 300;

// C0/C1 controls, DEL, the Unicode line and paragraph separators, and bidi overrides (which can
// make a log line read differently from what it is).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Every control, line-breaking or bidi character as a visible `\uXXXX` escape (valid in JSON too). */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function quote(text: string, max = MAX_UNTRUSTED): string {
  // Secrets go first: once shortened or escaped, the runner's mask no longer matches them.
  let clean = escapeUnsafe(redact(text));
  if (clean.length > max) clean = `${clean.slice(0, max)}…`;
  return `"${clean.replace(/"/g, '\\"')}"`;
}

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

/** A URL from the service: as is when it is a plain http(s) URL, quoted otherwise. */
export function printableUrl(url: string): string {
  const clean = redact(url);
  return isPlainHttpUrl(clean) ? clean : quote(clean);
}

/** http(s), printable ASCII only (no spaces, no line breaks), of a sane length. */
export function isPlainHttpUrl(url: string): boolean {
  return /^https?:\/\/[\x21-\x7e]{1,2000}$/.test(url);
}

/** An id or status from the service: as is when it is a plain word, quoted otherwise. */
export function label(text: string): string {
  const clean = redact(text);
  return /^[A-Za-z0-9][\w.-]{0,99}$/.test(clean) ? clean : quote(clean, 100);
}
