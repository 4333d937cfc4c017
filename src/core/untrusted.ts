import { redact } from './secrets.js';

// Text from outside (the service's replies and errors, GitHub's messages) rendered where it
// lands: the log and annotations, an output, the step summary (HTML), the kept comment
// (Markdown). Each form makes it inert there, and each redacts the run's secrets first, while the
// runner's mask could still have matched them.

/**
 * Text from the service (error messages, job fields) is untrusted. Printed raw, a reply such as
 * "\n::add-mask::…" or "::stop-commands::x" would become a workflow command, because the runner
 * reads every line of stdout and stderr whose trimmed start is `::`. `quote()` makes it inert: one
 * line, control and line-breaking characters escaped, shortened, and wrapped in quotes so no
 * command can start where it starts.
 */
const MAX_UNTRUSTED = 300;

// The one list of characters outside text never carries raw, wherever it lands (an output, the
// log, the summary, the comment, a commit status): C0/C1 controls and DEL, the Unicode line and
// paragraph separators, and the invisible and bidirectional characters that make text read
// differently from what it is (U+061C, U+200B–U+200F, U+202A–U+202E, U+2060, U+2066–U+2069,
// U+FEFF).
const UNSAFE_CHARS =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060\\u2066-\\u2069\\ufeff';
const UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, 'g');
/** A run of white space or unsafe characters, where text is folded onto one line. */
const FOLDED = new RegExp(`[\\s${UNSAFE_CHARS}]+`, 'g');

/** Whether the text holds a character of the list above. */
export function hasUnsafe(text: string): boolean {
  return new RegExp(`[${UNSAFE_CHARS}]`).test(text);
}

/** Every control, line-breaking or bidi character as a visible `\uXXXX` escape (valid in JSON too). */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Outside text on one line: secrets redacted, each run of white space or unsafe characters one space. */
export function oneLine(text: string): string {
  return redact(text).replace(FOLDED, ' ').trim();
}

export function quote(text: string, max = MAX_UNTRUSTED): string {
  // Secrets go first: once shortened or escaped, the runner's mask no longer matches them.
  let clean = escapeUnsafe(redact(text));
  if (clean.length > max) clean = `${clean.slice(0, max)}…`;
  return `"${clean.replace(/"/g, '\\"')}"`;
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

/**
 * A preview's URL as the action shows it: https only (a deployment status may name any scheme), no
 * credentials, printable, of a sane length; `undefined` for anything else.
 */
export function previewUrl(url: string | null | undefined): string | undefined {
  if (!url || url.length > 2000 || !/^https:\/\/[\x21-\x7e]+$/.test(url)) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && !parsed.username && !parsed.password ? url : undefined;
  } catch {
    return undefined;
  }
}

/** An id or status from the service: as is when it is a plain word, quoted otherwise. */
export function label(text: string): string {
  const clean = redact(text);
  return /^[A-Za-z0-9][\w.-]{0,99}$/.test(clean) ? clean : quote(clean, 100);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const MAX_CELL = 200;

/**
 * Text from the service in a summary cell: one line (a blank line would end the HTML block and
 * let the rest render as Markdown), shortened (the summary is capped at 1 MiB), HTML escaped;
 * secrets redacted before any of that, while the runner's mask could still have matched them.
 */
export function cell(text: string, max = MAX_CELL): string {
  let line = redact(text).replace(FOLDED, ' ').trim();
  if (line.length > max) line = `${line.slice(0, max)}…`;
  return line.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** The summary is capped at 1 MiB: a block of outside text leaves room for the rest. */
export const MAX_BLOCK = 200_000;

/**
 * Outside text over many lines in the summary (a prompt): a `<pre>` block, which Markdown ends
 * only at its closing tag (a blank line inside renders nothing of the rest), HTML escaped so no
 * tag of its own can close it, every unsafe character but the line break and the tab shown as an
 * escape, shortened; secrets redacted before any of that.
 */
export function preformatted(text: string, max = MAX_BLOCK): string {
  let clean = redact(text).replace(/\r\n?/g, '\n');
  if (clean.length > max) clean = `${clean.slice(0, max)}…`;
  clean = clean.replace(UNSAFE, (ch) => (ch === '\n' || ch === '\t' ? ch : escapeUnsafe(ch)));
  return `<pre>${clean.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch)}</pre>`;
}

/** Only plain http(s) links are rendered as links: a `javascript:` prLink stays inert text. */
export function link(url: string | null | undefined): string {
  if (!url) return '';
  const clean = redact(url);
  return isPlainHttpUrl(clean) ? `<a href="${cell(clean, 2000)}">${cell(clean)}</a>` : cell(clean);
}

/**
 * Service text in the comment, as text: one line, secrets redacted, cut to `max`, inside a code
 * span whose fence is longer than any run of backticks in it. GitHub renders Markdown and finds
 * `@mentions` and `owner/repo#1` references in what it rendered, after entities and backslash
 * escapes are decoded, so escaping cannot stop them; a code span stops all of it, links, images,
 * emphasis, autolinks and raw HTML included, and shows the text exactly as it came.
 */
export function inert(text: string, max = 200): string {
  let line = redact(text).replace(FOLDED, ' ').trim();
  if (line.length > max) line = `${line.slice(0, max)}…`;
  if (!line) return '';
  const longestRun = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // A space on each side is dropped again by the renderer; it keeps a backtick at either end
  // from joining the fence.
  const pad = /^[ `]|[ `]$/.test(line) ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/**
 * A pull request URL as GitHub forms them (`https://host/owner/repo/pull/12`): the only link from
 * the service the comment makes live. Anything else is shown as text.
 */
export function isPullRequestUrl(url: string): boolean {
  return /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\/[A-Za-z0-9-]{1,100}\/[A-Za-z0-9._-]{1,100}\/pull\/\d{1,10}\/?$/.test(
    url,
  );
}
