import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DB } from '../store/schema.js';

/**
 * Wakes workers when runs are queued and stops runs when their job is archived, without polling
 * for it: in-process on SQLite (one process), LISTEN/NOTIFY on Postgres (any number of processes).
 */
export interface Notifier {
  publishRunQueued(): Promise<void>;
  publishJobArchived(jobId: string): Promise<void>;
  onRunQueued(listener: () => void): () => void;
  onJobArchived(listener: (jobId: string) => void): () => void;
  close(): Promise<void>;
}

const QUEUED = 'redline_run_queued';
const ARCHIVED = 'redline_job_archived';

export class InProcessNotifier implements Notifier {
  protected readonly events = new EventEmitter().setMaxListeners(0);

  async publishRunQueued(): Promise<void> {
    this.events.emit(QUEUED);
  }

  async publishJobArchived(jobId: string): Promise<void> {
    this.events.emit(ARCHIVED, jobId);
  }

  onRunQueued(listener: () => void): () => void {
    this.events.on(QUEUED, listener);
    return () => this.events.off(QUEUED, listener);
  }

  onJobArchived(listener: (jobId: string) => void): () => void {
    this.events.on(ARCHIVED, listener);
    return () => this.events.off(ARCHIVED, listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

/**
 * Publishes with NOTIFY through the shared pool; listens on one dedicated connection that is
 * opened only once something subscribes (an API-only process never holds one) and reopened
 * after a drop. While it is down the workers' fallback poll still finds queued runs.
 */
export class PostgresNotifier extends InProcessNotifier {
  #client: pg.Client | null = null;
  #connecting: Promise<void> | null = null;
  #closed = false;
  #retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly connectionString: string,
    private readonly log: Logger,
  ) {
    super();
  }

  override async publishRunQueued(): Promise<void> {
    await sql`SELECT pg_notify(${QUEUED}, '')`.execute(this.db);
  }

  override async publishJobArchived(jobId: string): Promise<void> {
    await sql`SELECT pg_notify(${ARCHIVED}, ${jobId})`.execute(this.db);
  }

  override onRunQueued(listener: () => void): () => void {
    void this.#listen();
    return super.onRunQueued(listener);
  }

  override onJobArchived(listener: (jobId: string) => void): () => void {
    void this.#listen();
    return super.onJobArchived(listener);
  }

  /** Resolves once the LISTEN connection is up (tests and benchmarks wait on it). */
  ready(): Promise<void> {
    return this.#connecting ?? this.#listen();
  }

  #listen(): Promise<void> {
    if (this.#client || this.#connecting || this.#closed) return this.#connecting ?? Promise.resolve();
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (msg) => {
      if (msg.channel === QUEUED) this.events.emit(QUEUED);
      else if (msg.channel === ARCHIVED && msg.payload) this.events.emit(ARCHIVED, msg.payload);
    });
    client.on('error', (err) => {
      this.log.warn({ err: err.message }, 'LISTEN connection lost; reconnecting');
      this.#drop(client);
    });
    client.on('end', () => this.#drop(client));
    this.#connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${QUEUED}`);
        await client.query(`LISTEN ${ARCHIVED}`);
        this.#client = client;
        // Anything queued while we were not listening is picked up now.
        this.events.emit(QUEUED);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'cannot open LISTEN connection; retrying');
        this.#drop(client);
      } finally {
        this.#connecting = null;
      }
    })();
    return this.#connecting;
  }

  #drop(client: pg.Client): void {
    if (this.#client === client) this.#client = null;
    client.end().catch(() => undefined);
    if (this.#closed || this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (this.events.listenerCount(QUEUED) + this.events.listenerCount(ARCHIVED) > 0) void this.#listen();
    }, 1000);
    this.#retryTimer.unref();
  }

  override async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    await this.#connecting;
    const client = this.#client;
    this.#client = null;
    if (client) await client.end().catch(() => undefined);
    await super.close();
  }
}
