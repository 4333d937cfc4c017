import * as z from 'zod/mini';

/**
 * What a thread remembers between runs, kept as a hidden line in the action's own comment: the
 * job that serves the thread, the head commit it last saw, and the run (and attempt) that last
 * wrote it — so a later push follows the job up with what changed since, and a re-run of the same
 * run finds the job its earlier attempt started.
 */
export interface ThreadNote {
  job: string;
  /** The head commit the job last saw; absent when no run on the thread knew one. */
  head?: string;
  run: number;
  attempt: number;
}

const PREFIX = '<!-- agent-job-action:note ';
const noteSchema = z.object({
  job: z.string().check(z.minLength(1), z.maxLength(500)),
  head: z.optional(z.string().check(z.regex(/^[0-9a-f]{40}$/))),
  run: z.int().check(z.nonnegative()),
  attempt: z.int().check(z.positive()),
});

/**
 * The note as a line of the comment. Encoded (base64url of JSON): a job id is the service's text,
 * and must not be able to end the HTML comment it sits in or render as anything.
 */
export function noteLine(note: ThreadNote): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(note)).toString('base64url')} -->`;
}

/** The note in a comment's body (the action's own comment, found by its marker); else `undefined`. */
export function readNote(body: string): ThreadNote | undefined {
  const start = body.indexOf(PREFIX);
  if (start < 0) return undefined;
  const end = body.indexOf(' -->', start);
  const encoded = body.slice(start + PREFIX.length, end < 0 ? undefined : end);
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(encoded)) return undefined;
  try {
    const parsed = noteSchema.safeParse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
