import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import { newId } from '../ids.js';
import type { Dialect } from '../store/database.js';
import type { DB, JobTable, RunTable } from '../store/schema.js';
import { transition } from './transitions.js';
import type { JobEvent } from './transitions.js';
import type { RunResult } from './executor.js';
import type { TokenUsage } from './job-view.js';

/**
 * The database is the queue (DESIGN.md §2). A run is claimed with a lease that its worker renews;
 * a run whose lease ran out (its worker died) is claimable again. Runs of one job execute one at a
 * time, in order: a run is claimable only when no earlier run of its job is queued or running.
 */

/** After this many claims a run that keeps losing its worker fails instead of looping forever. */
export const MAX_RUN_ATTEMPTS = 3;

export type RunOutcome =
  | ({ status: 'succeeded' } & Partial<RunResult>)
  | { status: 'failed'; error: { code: string; message: string }; usage?: TokenUsage };

/**
 * "Now" for lease arithmetic. On Postgres it is the database's clock, so workers on several
 * hosts agree on when a lease runs out even if their own clocks drift; SQLite is one process on
 * one machine. Tests pass an explicit time to move the clock.
 */
function clock(dialect: Dialect, now: number | undefined) {
  if (dialect === 'postgres' && now === undefined) {
    return sql<number>`(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;
  }
  // Typed, so `now + lease` is integer arithmetic on Postgres rather than two unknown parameters.
  return sql<number>`CAST(${now ?? Date.now()} AS BIGINT)`;
}

export async function claimRun(
  db: Kysely<DB>,
  dialect: Dialect,
  owner: string,
  leaseMs: number,
  at?: number,
): Promise<RunTable | null> {
  const now = clock(dialect, at);
  // SKIP LOCKED lets concurrent workers on Postgres pass over a row another is claiming; SQLite
  // has a single writer, so the same statement without it is already atomic there.
  const skipLocked = dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const result = await sql<RunTable>`
    UPDATE runs
    SET status = 'running',
        attempts = attempts + 1,
        lease_owner = ${owner},
        lease_expires_at = ${now} + ${leaseMs},
        started_at = COALESCE(started_at, ${now})
    WHERE id = (
      SELECT r.id FROM runs r
      WHERE (r.status = 'queued' OR (r.status = 'running' AND r.lease_expires_at < ${now}))
        AND NOT EXISTS (
          SELECT 1 FROM runs p
          WHERE p.job_id = r.job_id AND p.seq < r.seq AND p.status IN ('queued', 'running')
        )
      ORDER BY r.id
      LIMIT 1
      ${skipLocked}
    )
    RETURNING *`.execute(db);
  return result.rows[0] ?? null;
}

/** Extends the lease; false when the run is no longer this worker's (cancelled or taken over). */
export async function renewLease(
  db: Kysely<DB>,
  dialect: Dialect,
  runId: string,
  owner: string,
  leaseMs: number,
  at?: number,
): Promise<boolean> {
  const r = await db
    .updateTable('runs')
    .set({ lease_expires_at: sql<number>`${clock(dialect, at)} + ${leaseMs}` })
    .where('id', '=', runId)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Puts a run this worker holds back in the queue (graceful shutdown); it keeps its place. */
export async function releaseRun(db: Kysely<DB>, runId: string, owner: string): Promise<void> {
  await db
    .updateTable('runs')
    .set((eb) => ({
      status: 'queued',
      lease_owner: null,
      lease_expires_at: null,
      attempts: eb('attempts', '-', 1),
    }))
    .where('id', '=', runId)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Takes the job row's write lock first (on Postgres the row lock, on SQLite the database write
 * lock), so every job-changing transaction (message, archive, run completion) sees the others
 * committed and a completion never overwrites a follow-up queued a moment earlier.
 */
export async function lockJob(trx: Transaction<DB>, jobId: string): Promise<JobTable | null> {
  // A no-op write: it takes the lock without changing the row (an untouched job keeps updatedAt).
  const row = await trx
    .updateTable('jobs')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', jobId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Records how a run ended and moves its job on. Does nothing and returns false when the run is no
 * longer this worker's: the job was archived meanwhile, or the lease ran out and another worker
 * took the run over, so effects are recorded once.
 */
export async function completeRun(
  db: Kysely<DB>,
  run: Pick<RunTable, 'id' | 'job_id'>,
  owner: string,
  outcome: RunOutcome,
  now = Date.now(),
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const job = await lockJob(trx, run.job_id);
    if (!job) return false;
    const failed = outcome.status === 'failed';
    const updated = await trx
      .updateTable('runs')
      .set({
        status: outcome.status,
        finished_at: now,
        lease_owner: null,
        lease_expires_at: null,
        error_code: failed ? outcome.error.code : null,
        error_message: failed ? outcome.error.message : null,
      })
      .where('id', '=', run.id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;

    if (failed) {
      await trx
        .insertInto('messages')
        .values({
          id: newId('msg'),
          job_id: run.job_id,
          run_id: run.id,
          role: 'system',
          content: `Run failed (${outcome.error.code}): ${outcome.error.message}`,
          tool_name: null,
          data: null,
          created_at: now,
        })
        .execute();
    }

    const pending = await trx
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', run.job_id)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    const changes: Partial<JobTable> = { updated_at: now };
    if (outcome.usage) {
      const before: TokenUsage = job.usage
        ? JSON.parse(job.usage)
        : { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      changes.usage = JSON.stringify({
        inputTokens: before.inputTokens + outcome.usage.inputTokens,
        outputTokens: before.outputTokens + outcome.usage.outputTokens,
        totalTokens: before.totalTokens + outcome.usage.totalTokens,
      });
    }
    if (outcome.status === 'succeeded') {
      if (outcome.summary !== undefined) changes.summary = outcome.summary;
      // prLink never goes back to null (DESIGN.md §1).
      if (outcome.prLink) changes.pr_link = outcome.prLink;
      if (outcome.branch) changes.branch = outcome.branch;
      if (outcome.checks !== undefined) changes.checks = JSON.stringify(outcome.checks);
    }
    // A follow-up queued behind this run keeps the job active; its own end decides the status.
    if (Number(pending.n) === 0) {
      const event: JobEvent = failed ? 'run_failed' : 'run_succeeded';
      const next = transition(job.status, event);
      if (next.ok) {
        changes.status = next.status;
        changes.error_code = failed ? outcome.error.code : null;
        changes.error_message = failed ? outcome.error.message : null;
      }
    }
    await trx.updateTable('jobs').set(changes).where('id', '=', run.job_id).execute();
    return true;
  });
}
