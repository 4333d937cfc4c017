import * as z from 'zod/mini';
import type { Delivery, RunEntry, ThreadNote } from '../core/ports.js';
import { isJobId } from '../core/job.js';
import { threadUses } from '../core/uses.js';

export type { ThreadNote };

/** Enough for a re-run after a busy day of other runs on the thread. */
export const RECENT_RUNS = 20;
/** Docs pull requests waiting to be closed: a thread whose follow-ups are refused again and again keeps the newest. */
export const SUPERSEDED_KEPT = 5;
/** A pull request's URL, with room to spare. */
const MAX_LINK = 500;
/** The recent runs' deliveries of `/docs` requests kept: the highest says what is delivered. */
export const RECENT_DELIVERIES = 20;

const PREFIX = '<!-- agent-job-action:note ';
/** 20 runs with 200-character ids, 5 links and 20 deliveries, base64url-encoded, with room to spare. */
const MAX_ENCODED = 24_000;
const entrySchema = z.object({
  run: z.int().check(z.nonnegative()),
  attempt: z.int().check(z.positive()),
  job: z.string().check(z.minLength(1), z.maxLength(500)),
  uses: z.optional(z.int().check(z.nonnegative())),
});
const deliverySchema = z.object({
  run: z.int().check(z.nonnegative()),
  after: z.int(),
  upTo: z.int().check(z.nonnegative()),
});
const noteSchema = z.object({
  job: z.string().check(z.minLength(1), z.maxLength(500)),
  head: z.optional(z.string().check(z.regex(/^[0-9a-f]{40}$/))),
  run: z.int().check(z.nonnegative()),
  attempt: z.int().check(z.positive()),
  runs: z.optional(z.array(entrySchema).check(z.maxLength(RECENT_RUNS))),
  uses: z.optional(z.int().check(z.nonnegative())),
  superseded: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(MAX_LINK))).check(z.maxLength(SUPERSEDED_KEPT)),
  ),
  delivered: z.optional(z.array(deliverySchema).check(z.maxLength(RECENT_DELIVERIES))),
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
  if (!new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ENCODED}}$`).test(encoded)) return undefined;
  try {
    const parsed = noteSchema.safeParse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
    if (!parsed.success) return undefined;
    // A recent run's job is resumed by id (a re-run): one the service could not have given is
    // dropped here, as the thread's own job is where it is read.
    const { runs, ...note } = parsed.data;
    return runs ? { ...note, runs: runs.filter((entry) => isJobId(entry.job)) } : note;
  } catch {
    return undefined;
  }
}

/**
 * The note after this run, whose job the service confirmed. The thread's job and head move
 * forward only: GitHub's run ids grow, so a re-run of an older run adds itself to the recent runs
 * but leaves the job and head a newer run wrote. A run that saw no commit (a comment) keeps the
 * head the job last saw. The thread's quota uses add this run's (`uses`) once, however often
 * the run writes the note: its entry keeps what it added. The docs pull requests waiting to be
 * closed are `superseded` when given (none: the run dealt with them), else the previous note's.
 */
export function nextNote(
  previous: ThreadNote | undefined,
  run: {
    job: string;
    head?: string;
    run: number;
    attempt: number;
    uses?: number;
    superseded?: string[];
    /** The `/docs` requests this run delivered (comment ids above `after`, up to `upTo`). */
    delivery?: { after: number; upTo: number };
  },
): ThreadNote {
  const spent = run.uses ?? 0;
  const earlier: RunEntry[] =
    previous?.runs ?? (previous ? [{ run: previous.run, attempt: previous.attempt, job: previous.job }] : []);
  const runs = [
    { run: run.run, attempt: run.attempt, job: run.job, ...(spent > 0 ? { uses: spent } : {}) },
    ...earlier.filter((entry) => entry.run !== run.run),
  ]
    .sort((a, b) => b.run - a.run)
    .slice(0, RECENT_RUNS);
  const total = threadUses(previous, { run: run.run, attempt: run.attempt, uses: spent });
  const uses = total > 0 ? { uses: total } : {};
  const waiting = (run.superseded ?? previous?.superseded ?? [])
    .filter((link) => link.length <= MAX_LINK)
    .slice(-SUPERSEDED_KEPT);
  const superseded = waiting.length > 0 ? { superseded: waiting } : {};
  const deliveries = delivered(previous?.delivered, run.delivery && { run: run.run, ...run.delivery });
  // Kept even when empty: a note without it is one written before deliveries were recorded.
  const recorded = previous === undefined || previous.delivered !== undefined || run.delivery !== undefined;
  const delivery = recorded ? { delivered: deliveries } : {};
  if (previous && previous.run > run.run) {
    const older: ThreadNote = { ...previous, runs, ...uses, ...delivery };
    delete older.superseded;
    return { ...older, ...superseded };
  }
  const head = run.head ?? (previous?.job === run.job ? previous.head : undefined);
  return {
    job: run.job,
    ...(head ? { head } : {}),
    run: run.run,
    attempt: run.attempt,
    runs,
    ...uses,
    ...superseded,
    ...delivery,
  };
}

/**
 * The deliveries kept, highest first, with this run's: a run that writes the note twice (or a
 * re-run) keeps one entry, spanning both.
 */
function delivered(earlier: Delivery[] = [], own: Delivery | undefined): Delivery[] {
  if (!own) return earlier;
  const same = earlier.find((d) => d.run === own.run);
  const merged = same
    ? { run: own.run, after: Math.min(same.after, own.after), upTo: Math.max(same.upTo, own.upTo) }
    : own;
  return [merged, ...earlier.filter((d) => d.run !== own.run)]
    .sort((a, b) => b.upTo - a.upTo)
    .slice(0, RECENT_DELIVERIES);
}
