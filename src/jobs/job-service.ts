import { createHash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { ProviderSettings } from '../config.js';
import { RedlineError, notFound } from '../errors.js';
import { isId, newId } from '../ids.js';
import { resolveJobModel } from '../models/registry.js';
import type { Project } from '../projects/projects.js';
import type { DB, JobStatus, JobTable, MessageRole } from '../store/schema.js';
import { toJobView } from './job-view.js';
import type { JobView } from './job-view.js';
import type { Notifier } from './notifier.js';
import { lockJob } from './queue.js';
import { transition } from './transitions.js';

/** An Idempotency-Key and a digest of the request it came with (DESIGN.md §1). */
export interface IdempotencyRequest {
  key: string;
  requestHash: string;
}

export interface StoredResponse {
  statusCode: number;
  body: JobView;
}

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export function hashRequest(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body)}`)
    .digest('hex');
}

export interface ConversationMessage {
  id: string;
  runId: string;
  role: MessageRole;
  content: string;
  toolName: string | null;
  data: Record<string, unknown> | null;
  createdAt: string;
}

export interface JobPage {
  jobs: JobView[];
  nextCursor: string | null;
}

export interface JobServiceOptions {
  defaultModel: string | null;
  providers: ProviderSettings;
  log?: Logger;
}

/** Creating, following up, archiving and reading jobs: everything the API does to a job. */
export class JobService {
  #getJobSql: string | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly notifier: Notifier,
    private readonly options: JobServiceOptions,
  ) {}

  /** The stored response for this key, a conflict if the key came with another request, or null. */
  async findIdempotent(projectId: string, idem: IdempotencyRequest, db: Kysely<DB> = this.db) {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('key', '=', idem.key)
      .where('created_at', '>', Date.now() - IDEMPOTENCY_WINDOW_MS)
      .executeTakeFirst();
    if (!row) return null;
    if (row.request_hash !== idem.requestHash) {
      throw new RedlineError(
        'conflict',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    return { statusCode: row.status_code, body: JSON.parse(row.response_body) as JobView } as StoredResponse;
  }

  /** The model a new job of this project runs with; throws `model_not_configured` if it cannot run here. */
  resolveModel(project: Project, requested: string | undefined): string {
    return resolveJobModel(
      {
        requested,
        projectModel: project.model,
        projectAllowedModels: project.allowedModels,
        instanceDefault: this.options.defaultModel,
      },
      this.options.providers,
    );
  }

  /** Queues a job; `model` comes from resolveModel. */
  async create(
    project: Project,
    input: { prompt: string; model: string },
    idem?: IdempotencyRequest,
  ): Promise<StoredResponse> {
    const { model } = input;
    const response = await this.#idempotent(project.id, idem, 201, async (trx) => {
      const now = Date.now();
      const job: JobTable = {
        id: newId('job'),
        project_id: project.id,
        status: 'active',
        repository: project.repository,
        ref: project.ref,
        model,
        pr_link: null,
        summary: null,
        error_code: null,
        error_message: null,
        created_at: now,
        updated_at: now,
        archived_at: null,
        branch: null,
        usage: null,
        checks: null,
      };
      await trx.insertInto('jobs').values(job).execute();
      await this.#queueRun(trx, job.id, 1, input.prompt, now);
      return toJobView(job);
    });
    await this.#wakeWorkers(response);
    return response;
  }

  async message(
    project: Project,
    jobId: string,
    input: { prompt: string },
    idem?: IdempotencyRequest,
  ): Promise<StoredResponse> {
    const response = await this.#idempotent(project.id, idem, 200, async (trx) => {
      const now = Date.now();
      const job = await this.#lockProjectJob(trx, project.id, jobId);
      const next = transition(job.status, 'message');
      if (!next.ok) throw new RedlineError('conflict', next.reason);
      const last = await trx
        .selectFrom('runs')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .where('job_id', '=', job.id)
        .executeTakeFirst();
      await this.#queueRun(trx, job.id, Number(last?.seq ?? 0) + 1, input.prompt, now);
      const updated = { ...job, status: next.status, error_code: null, error_message: null, updated_at: now };
      await trx
        .updateTable('jobs')
        .set({ status: updated.status, error_code: null, error_message: null, updated_at: now })
        .where('id', '=', job.id)
        .execute();
      return toJobView(updated);
    });
    await this.#wakeWorkers(response);
    return response;
  }

  /** Archives the job and cancels its queued and running runs; an open PR is left as it is. */
  async archive(project: Project, jobId: string): Promise<JobView> {
    const { view, changed } = await this.db.transaction().execute(async (trx) => {
      const now = Date.now();
      const job = await this.#lockProjectJob(trx, project.id, jobId);
      if (job.status === 'archived') return { view: toJobView(job), changed: false };
      const next = transition(job.status, 'archive');
      if (!next.ok) throw new RedlineError('conflict', next.reason);
      await trx
        .updateTable('runs')
        .set({ status: 'cancelled', finished_at: now, lease_owner: null, lease_expires_at: null })
        .where('job_id', '=', job.id)
        .where('status', 'in', ['queued', 'running'])
        .execute();
      const updated = { ...job, status: next.status, archived_at: now, updated_at: now };
      await trx
        .updateTable('jobs')
        .set({ status: updated.status, archived_at: now, updated_at: now })
        .where('id', '=', job.id)
        .execute();
      return { view: toJobView(updated), changed: true };
    });
    if (changed) await this.#notify(() => this.notifier.publishJobArchived(jobId));
    return view;
  }

  async get(project: Project, jobId: string): Promise<JobView> {
    if (!isId('job', jobId)) throw notFound('Job');
    // The hottest query of the API: compiled once, then run with new parameters.
    this.#getJobSql ??= this.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', '')
      .where('project_id', '=', '')
      .compile().sql;
    const { rows } = await this.db.executeQuery<JobTable>(
      CompiledQuery.raw(this.#getJobSql, [jobId, project.id]),
    );
    if (!rows[0]) throw notFound('Job');
    return toJobView(rows[0]);
  }

  /** Newest first; the cursor is the id of the last job of the previous page. */
  async list(
    project: Project,
    query: { status?: JobStatus; limit: number; cursor?: string },
  ): Promise<JobPage> {
    let q = this.db.selectFrom('jobs').selectAll().where('project_id', '=', project.id);
    if (query.status) q = q.where('status', '=', query.status);
    if (query.cursor !== undefined) q = q.where('id', '<', decodeCursor(query.cursor));
    const rows = await q
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    const page = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    return { jobs: page.map(toJobView), nextCursor: more ? encodeCursor(page[page.length - 1]!.id) : null };
  }

  async messages(project: Project, jobId: string): Promise<ConversationMessage[]> {
    await this.get(project, jobId);
    const rows = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('id')
      .execute();
    return rows.map((m) => ({
      id: m.id,
      runId: m.run_id,
      role: m.role,
      content: m.content,
      toolName: m.tool_name,
      data: m.data === null ? null : (JSON.parse(m.data) as Record<string, unknown>),
      createdAt: new Date(m.created_at).toISOString(),
    }));
  }

  async #lockProjectJob(trx: Transaction<DB>, projectId: string, jobId: string): Promise<JobTable> {
    if (!isId('job', jobId)) throw notFound('Job');
    const job = await lockJob(trx, jobId);
    if (!job || job.project_id !== projectId) throw notFound('Job');
    return job;
  }

  async #queueRun(trx: Transaction<DB>, jobId: string, seq: number, prompt: string, now: number) {
    const runId = newId('run');
    await trx
      .insertInto('runs')
      .values({
        id: runId,
        job_id: jobId,
        seq,
        prompt,
        status: 'queued',
        attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        error_code: null,
        error_message: null,
        created_at: now,
        started_at: null,
        finished_at: null,
      })
      .execute();
    await trx
      .insertInto('messages')
      .values({
        id: newId('msg'),
        job_id: jobId,
        run_id: runId,
        role: 'user',
        content: prompt,
        tool_name: null,
        data: null,
        created_at: now,
      })
      .execute();
  }

  /**
   * Runs `work` and, when an Idempotency-Key came with the request, stores its response in the same
   * transaction, so a retry after a lost response replays it instead of doing the work twice.
   */
  async #idempotent(
    projectId: string,
    idem: IdempotencyRequest | undefined,
    statusCode: number,
    work: (trx: Transaction<DB>) => Promise<JobView>,
  ): Promise<StoredResponse & { replayed?: boolean }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          if (idem) {
            const stored = await this.findIdempotent(projectId, idem, trx);
            if (stored) return { ...stored, replayed: true };
          }
          const body = await work(trx);
          if (idem) {
            // Only expired records go (this key's, and the project's other stale ones). A fresh
            // record of a concurrent request with the same key stays, so this insert then fails
            // as a duplicate, the transaction (and its job) rolls back, and the retry replays.
            await trx
              .deleteFrom('idempotency_keys')
              .where('project_id', '=', projectId)
              .where('created_at', '<=', Date.now() - IDEMPOTENCY_WINDOW_MS)
              .execute();
            await trx
              .insertInto('idempotency_keys')
              .values({
                project_id: projectId,
                key: idem.key,
                request_hash: idem.requestHash,
                status_code: statusCode,
                response_body: JSON.stringify(body),
                created_at: Date.now(),
              })
              .execute();
          }
          return { statusCode, body };
        });
      } catch (err) {
        // Two requests with the same new key at once: the loser finds the winner's record.
        if (idem && attempt === 0 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  async #wakeWorkers(response: StoredResponse & { replayed?: boolean }) {
    if (!response.replayed) await this.#notify(() => this.notifier.publishRunQueued());
  }

  /**
   * The change is committed by now; a failed wake-up must not turn it into an error the client
   * would retry (creating a duplicate). Workers' poll finds the run anyway, a little later.
   */
  async #notify(publish: () => Promise<void>) {
    try {
      await publish();
    } catch (err) {
      this.options.log?.warn(
        { err: (err as Error).message },
        'wake-up notification failed; workers will poll',
      );
    }
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

function encodeCursor(jobId: string): string {
  return Buffer.from(jobId, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId('job', id)) {
    throw new RedlineError('invalid_request', 'cursor is not a cursor this server returned', {
      field: 'cursor',
    });
  }
  return id;
}
