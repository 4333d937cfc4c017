import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { newId } from '../ids.js';
import { toProject } from '../projects/projects.js';
import type { Dialect } from '../store/database.js';
import type { DB, RunTable } from '../store/schema.js';
import { JobFailure } from './executor.js';
import type { RunExecutor } from './executor.js';
import type { Notifier } from './notifier.js';
import { MAX_RUN_ATTEMPTS, claimRun, completeRun, releaseRun, renewLease } from './queue.js';
import type { RunOutcome } from './queue.js';

export interface WorkerOptions {
  db: Kysely<DB>;
  dialect: Dialect;
  notifier: Notifier;
  executor: RunExecutor;
  log: Logger;
  concurrency: number;
  leaseMs: number;
  /**
   * How often an idle worker looks for work it was not told about: runs whose worker died (their
   * lease expired) and, on SQLite, runs queued by another process. Queued runs wake it at once.
   */
  pollIntervalMs?: number;
}

interface ActiveRun {
  run: RunTable;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Claims runs and executes them, up to `concurrency` at a time. Wake-ups are event-driven; the
 * poll only catches expired leases and missed notifications.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${newId('wrk').slice(4)}`;
  readonly #active = new Map<string, ActiveRun>();
  #stopping = false;
  #claiming: Promise<void> | null = null;
  #again = false;
  #pollTimer: NodeJS.Timeout | null = null;
  #unsubscribe: Array<() => void> = [];

  constructor(private readonly o: WorkerOptions) {}

  start(): void {
    this.#unsubscribe.push(this.o.notifier.onRunQueued(() => this.#wake()));
    this.#unsubscribe.push(
      this.o.notifier.onJobArchived((jobId) => {
        for (const a of this.#active.values())
          if (a.run.job_id === jobId) a.controller.abort(new Error('archived'));
      }),
    );
    const interval = this.o.pollIntervalMs ?? Math.min(1000, this.o.leaseMs / 2);
    // Not unref'd: on SQLite nothing else keeps a worker-only process alive.
    this.#pollTimer = setInterval(() => this.#wake(), interval);
    this.#wake();
  }

  get activeRuns(): number {
    return this.#active.size;
  }

  /**
   * Stops claiming, lets running work finish for up to `graceMs`, then aborts what is left and
   * puts those runs back in the queue so another worker (or this one after a restart) runs them.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    // Archive events still stop running work during the grace period; only wake-ups end now.
    this.#unsubscribe.shift()?.();
    await this.#claiming;
    try {
      await this.#drain(graceMs);
    } finally {
      this.#close();
    }
  }

  async #drain(graceMs: number): Promise<void> {
    const all = Promise.all([...this.#active.values()].map((a) => a.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (!timedOut) return;
    const left = [...this.#active.values()];
    this.o.log.warn({ runs: left.length }, 'grace period over; releasing unfinished runs');
    for (const a of left) a.controller.abort(new Error('shutdown'));
    await Promise.all(left.map((a) => releaseRun(this.o.db, a.run.id, this.id).catch(() => undefined)));
    // Other workers take the released runs now rather than at their next poll.
    await this.o.notifier.publishRunQueued().catch(() => undefined);
    await Promise.race([all, new Promise((r) => setTimeout(r, 1000))]);
  }

  /** Ends the archive subscription; called once the process no longer runs anything. */
  #close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
  }

  #wake(): void {
    if (this.#stopping) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = this.#claimLoop()
      .catch((err: Error) => this.o.log.error({ err: err.message }, 'claiming runs failed'))
      .finally(() => {
        this.#claiming = null;
        if (this.#again) {
          this.#again = false;
          this.#wake();
        }
      });
  }

  async #claimLoop(): Promise<void> {
    while (!this.#stopping && this.#active.size < this.o.concurrency) {
      const run = await claimRun(this.o.db, this.o.dialect, this.id, this.o.leaseMs);
      if (!run) return;
      this.#begin(run);
    }
  }

  #begin(run: RunTable): void {
    const controller = new AbortController();
    const active: ActiveRun = { run, controller, done: Promise.resolve() };
    this.#active.set(run.id, active);
    active.done = this.#execute(run, controller)
      .catch((err: Error) =>
        this.o.log.error({ runId: run.id, err: err.message }, 'recording the run failed'),
      )
      .finally(() => {
        this.#active.delete(run.id);
        this.#wake();
      });
  }

  async #execute(run: RunTable, controller: AbortController): Promise<void> {
    const log = this.o.log.child({ runId: run.id, jobId: run.job_id, attempt: run.attempts });
    // A run whose lease cannot be renewed (database unreachable) may already be running
    // elsewhere once the lease is out; stop it before that can happen.
    let renewedAt = Date.now();
    const heartbeat = setInterval(() => {
      if (Date.now() - renewedAt > this.o.leaseMs * 0.9)
        controller.abort(new Error('lease could not be renewed'));
      renewLease(this.o.db, this.o.dialect, run.id, this.id, this.o.leaseMs)
        .then((held) => {
          if (held) renewedAt = Date.now();
          else controller.abort(new Error('lease lost'));
        })
        .catch((err: Error) => log.warn({ err: err.message }, 'lease renewal failed'));
    }, this.o.leaseMs / 3);
    try {
      const outcome = await this.#outcome(run, controller.signal, log);
      if (controller.signal.aborted) {
        log.info({ reason: String(controller.signal.reason) }, 'run stopped');
        return;
      }
      const recorded = await completeRun(this.o.db, run, this.id, outcome);
      log.info({ outcome: outcome.status, recorded }, 'run finished');
    } finally {
      clearInterval(heartbeat);
    }
  }

  async #outcome(run: RunTable, signal: AbortSignal, log: Logger): Promise<RunOutcome> {
    if (run.attempts > MAX_RUN_ATTEMPTS) {
      return {
        status: 'failed',
        error: {
          code: 'internal',
          message: `The run was interrupted ${MAX_RUN_ATTEMPTS} times before it could finish (its worker stopped); send the prompt again as a follow-up.`,
        },
      };
    }
    try {
      const job = await this.o.db
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', run.job_id)
        .executeTakeFirstOrThrow();
      const project = await this.o.db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', job.project_id)
        .executeTakeFirstOrThrow();
      const result = await this.o.executor.execute({ run, job, project: toProject(project), signal });
      return { status: 'succeeded', ...result };
    } catch (err) {
      if (err instanceof JobFailure) {
        return {
          status: 'failed',
          error: { code: err.code, message: err.message },
          ...(err.usage ? { usage: err.usage } : {}),
        };
      }
      // An archive or a shutdown stops the run through its signal; that is not a failure.
      if (!signal.aborted) log.error({ err: (err as Error).message }, 'run failed unexpectedly');
      return {
        status: 'failed',
        error: {
          code: 'internal',
          message: 'The run failed with an internal error; see the server log for details.',
        },
      };
    }
  }
}
