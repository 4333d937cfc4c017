// The thread's ledger (src/core/ledger.ts) as the kept comment holds it: one hidden line, encoded
// and decoded here, checked against its schema when read. What a run changes in it is the ledger's.
import * as z from 'zod/mini';
import { isJobId } from '../core/job.js';
import {
  MAX_LINK,
  RECENT_RUNS,
  SETTLED_IDS,
  SETTLED_RUNS,
  SUPERSEDED_KEPT,
  WAITING_NAMES,
} from '../core/ledger.js';
import type { ThreadNote } from '../core/ports.js';
import { isDocsPullPage } from '../core/pull-request.js';
import { previewUrl } from '../core/untrusted.js';

export type { ThreadNote };

/** A status context, as GitHub takes it. */
const MAX_CONTEXT = 255;
/** A label's or a reviewer's (`org/team`) name, with room to spare. */
const MAX_NAME = 201;

/** Earlier versions kept up to 20 runs' deliveries as ranges. */
const RECENT_DELIVERIES = 20;

const PREFIX = '<!-- agent-job-action:note ';
/**
 * 20 runs with 200-character ids, 5 links and 300 request ids, base64url-encoded, with room to
 * spare (a comment holds 65,536 characters).
 */
const MAX_ENCODED = 32_000;
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
const ledgerSchema = z.object({
  floor: z.int().check(z.nonnegative()),
  settled: z
    .array(
      z.object({
        run: z.int().check(z.nonnegative()),
        ids: z.array(z.int().check(z.positive())).check(z.maxLength(SETTLED_IDS)),
        refused: z.optional(z.literal(true)),
      }),
    )
    .check(z.maxLength(SETTLED_RUNS + SETTLED_IDS)),
});
const noteSchema = z.object({
  job: z.string().check(z.minLength(1), z.maxLength(500)),
  head: z.optional(z.string().check(z.regex(/^[0-9a-f]{40}$/))),
  run: z.int().check(z.nonnegative()),
  attempt: z.int().check(z.positive()),
  runs: z.optional(z.array(entrySchema).check(z.maxLength(RECENT_RUNS))),
  uses: z.optional(z.int().check(z.nonnegative())),
  docsPr: z.optional(z.string().check(z.refine(isDocsPullPage))),
  superseded: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(MAX_LINK))).check(z.maxLength(SUPERSEDED_KEPT)),
  ),
  delivered: z.optional(z.array(deliverySchema).check(z.maxLength(RECENT_DELIVERIES))),
  waiting: z.optional(
    z.object({
      run: z.int().check(z.nonnegative()),
      at: z.int().check(z.nonnegative()),
      timeout: z.int().check(z.positive()),
      status: z.optional(
        z.object({
          sha: z.string().check(z.regex(/^[0-9a-f]{40}$/)),
          context: z.string().check(z.minLength(1), z.maxLength(MAX_CONTEXT)),
        }),
      ),
      labels: z.optional(z.array(z.string().check(z.maxLength(MAX_NAME))).check(z.maxLength(WAITING_NAMES))),
      reviewers: z.optional(
        z.array(z.string().check(z.maxLength(MAX_NAME))).check(z.maxLength(WAITING_NAMES)),
      ),
      autoMerge: z.optional(z.enum(['merge', 'squash', 'rebase'])),
      draft: z.optional(z.literal(true)),
      queued: z.optional(z.array(z.int().check(z.positive())).check(z.maxLength(WAITING_NAMES))),
      merge: z.optional(z.literal(true)),
      docs: z.optional(z.string().check(z.maxLength(MAX_LINK), z.refine(isDocsPullPage))),
      project: z.optional(z.string().check(z.regex(/^[0-9a-f]{16}$/))),
      overdue: z.optional(z.literal(true)),
      ended: z.optional(z.literal(true)),
    }),
  ),
  requests: z.optional(ledgerSchema),
  merged: z.optional(z.int().check(z.nonnegative())),
  preview: z.optional(z.string().check(z.refine((url) => previewUrl(url) === url))),
  docs: z.optional(
    z.object({
      pr: z.string().check(z.regex(/^[a-z0-9_-]{1,39}\/[a-z0-9._-]{1,100}#[1-9][0-9]{0,9}$/)),
      requests: ledgerSchema,
    }),
  ),
});

/**
 * The note as a line of the comment. Encoded (base64url of JSON): a job id is the service's text,
 * and must not be able to end the HTML comment it sits in or render as anything.
 */
export function noteLine(note: ThreadNote): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(note)).toString('base64url')} -->`;
}

/** `body` with its note replaced by `note` (added under the marker line where it has none). */
export function withNote(body: string, note: ThreadNote): string {
  const start = body.indexOf(PREFIX);
  const end = start < 0 ? -1 : body.indexOf(' -->', start);
  if (end >= 0) return `${body.slice(0, start)}${noteLine(note)}${body.slice(end + ' -->'.length)}`;
  const [marker = '', ...rest] = body.split('\n');
  return [marker, noteLine(note), ...rest].join('\n');
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
