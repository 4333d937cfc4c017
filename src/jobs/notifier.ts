import { EventEmitter } from 'node:events';
import { closeSync, openSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
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
  /** A key was revoked somewhere: every process drops what it remembers of keys. */
  publishKeyRevoked(keyId: string): Promise<void>;
  onKeyRevoked(listener: () => void): () => void;
  close(): Promise<void>;
}

const QUEUED = 'redline_run_queued';
const ARCHIVED = 'redline_job_archived';
const REVOKED = 'redline_key_revoked';

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

  async publishKeyRevoked(_keyId: string): Promise<void> {
    this.events.emit(REVOKED);
  }

  onKeyRevoked(listener: () => void): () => void {
    this.events.on(REVOKED, listener);
    return () => this.events.off(REVOKED, listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

/**
 * SQLite: one server process, but the CLI that creates and revokes keys is another one. A
 * revocation is also written to a marker file in the data directory, which the server watches.
 */
export class SqliteNotifier extends InProcessNotifier {
  readonly #marker: string;
  #watcher: FSWatcher | null = null;

  constructor(dataDir: string) {
    super();
    this.#marker = path.join(dataDir, 'key-revocations');
  }

  override async publishKeyRevoked(keyId: string): Promise<void> {
    await appendFile(this.#marker, `${Date.now()} ${keyId}\n`, { mode: 0o600 });
    await super.publishKeyRevoked(keyId);
  }

  override onKeyRevoked(listener: () => void): () => void {
    if (!this.#watcher) {
      closeSync(openSync(this.#marker, 'a', 0o600));
      this.#watcher = watch(this.#marker, () => this.events.emit(REVOKED));
      this.#watcher.unref();
    }
    return super.onKeyRevoked(listener);
  }

  override async close(): Promise<void> {
    this.#watcher?.close();
    await super.close();
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

  override async publishKeyRevoked(keyId: string): Promise<void> {
    await sql`SELECT pg_notify(${REVOKED}, ${keyId})`.execute(this.db);
  }

  override onKeyRevoked(listener: () => void): () => void {
    void this.#listen();
    return super.onKeyRevoked(listener);
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
      else if (msg.channel === REVOKED) this.events.emit(REVOKED);
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
        await client.query(`LISTEN ${REVOKED}`);
        this.#client = client;
        // Anything queued, or any key revoked, while we were not listening is handled now.
        this.events.emit(QUEUED);
        this.events.emit(REVOKED);
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
      const listeners = [QUEUED, ARCHIVED, REVOKED].reduce((n, c) => n + this.events.listenerCount(c), 0);
      if (listeners > 0) void this.#listen();
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
