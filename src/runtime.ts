import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import type { RedlineApp } from './http/app.js';
import { RateLimiter } from './http/rate-limit.js';
import { AgentExecutor } from './agent/agent-executor.js';
import { Workspaces } from './git/workspace.js';
import { LocalHost } from './hosts/local.js';
import type { RunExecutor } from './jobs/executor.js';
import { JobService } from './jobs/job-service.js';
import { PostgresNotifier, SqliteNotifier } from './jobs/notifier.js';
import type { Notifier } from './jobs/notifier.js';
import { Worker } from './jobs/worker.js';
import { ApiKeyStore } from './keys/api-keys.js';
import { createLogger } from './log.js';
import { ProjectStore } from './projects/projects.js';
import { SecretBox } from './secrets/secret-box.js';
import { resolveSecretKey } from './secrets/secret-key.js';
import { migrate, openDatabase } from './store/database.js';
import type { Database } from './store/database.js';

export interface RuntimeOptions {
  config: Config;
  /** Serve the HTTP API (default true). */
  http?: boolean;
  /** Run a worker in this process (default true). */
  worker?: boolean;
  executor?: RunExecutor;
  log?: Logger;
  pollIntervalMs?: number;
}

export interface Runtime {
  config: Config;
  log: Logger;
  database: Database;
  notifier: Notifier;
  jobs: JobService;
  projects: ProjectStore;
  keys: ApiKeyStore;
  /** Seals secrets stored in the database (code-host tokens) under REDLINE_SECRET_KEY. */
  secrets: SecretBox;
  http: RedlineApp | null;
  worker: Worker | null;
  /** The address the API listens on, e.g. http://127.0.0.1:8080; null without HTTP. */
  url: string | null;
  /** Graceful stop: refuse new requests, let runs finish within the grace period, close. */
  stop(): Promise<void>;
}

/** Opens the database, migrates it, and wires the services that every command shares. */
export async function openServices(config: Config, log: Logger) {
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrate(database.db);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
  } catch (err) {
    await database.close();
    throw err;
  }
  const notifier: Notifier =
    database.dialect === 'postgres'
      ? new PostgresNotifier(database.db, database.postgresUrl!, log)
      : new SqliteNotifier(config.dataDir);
  return {
    database,
    notifier,
    projects: new ProjectStore(database.db),
    keys: new ApiKeyStore(database.db, notifier),
    jobs: new JobService(database.db, notifier, {
      defaultModel: config.model,
      providers: config.providers,
      log,
    }),
  };
}

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const { config } = o;
  const log = o.log ?? createLogger(config.logLevel);
  const secret = resolveSecretKey(config.secretKey, config.dataDir);
  if (secret.origin === 'generated') {
    log.info(
      { file: secret.file },
      'generated a secret key (REDLINE_SECRET_KEY was not set); keep this file',
    );
  }
  const services = await openServices(config, log);
  const { database, notifier } = services;

  let http: RedlineApp | null = null;
  let url: string | null = null;
  let worker: Worker | null = null;
  try {
    if (o.http !== false) {
      http = await buildApp({
        log,
        db: database.db,
        jobs: services.jobs,
        keys: services.keys,
        rateLimiter: new RateLimiter(database.db, config.rateLimitPerHour),
        publicUrl: config.publicUrl,
        maxBodyBytes: config.maxBodyBytes,
        maxPromptChars: config.maxPromptChars,
        databaseReady: async () => {
          try {
            await sql`SELECT 1`.execute(database.db);
            return true;
          } catch {
            return false;
          }
        },
      });
      await http.app.listen({ port: config.port, host: config.host });
      const address = http.app.server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    }
    if (o.worker !== false) {
      const workspaces = new Workspaces(config.dataDir, {
        name: config.agent.gitAuthorName,
        email: config.agent.gitAuthorEmail,
      });
      // Worktrees of runs whose worker died; no run lives longer than its wall-time limit.
      void workspaces.sweep(2 * config.agent.timeoutSeconds * 1000 + 60_000).catch(() => undefined);
      const executor =
        o.executor ??
        new AgentExecutor({
          db: database.db,
          workspaces,
          hosts: { local: new LocalHost(database.db, config.publicUrl) },
          providers: config.providers,
          settings: config.agent,
          log: log.child({ component: 'agent' }),
        });
      worker = new Worker({
        db: database.db,
        dialect: database.dialect,
        notifier,
        executor,
        log: log.child({ component: 'worker' }),
        concurrency: config.workerConcurrency,
        leaseMs: config.leaseSeconds * 1000,
        pollIntervalMs: o.pollIntervalMs,
      });
      worker.start();
      log.info({ workerId: worker.id, concurrency: config.workerConcurrency }, 'worker started');
    }
  } catch (err) {
    await http?.app.close();
    await notifier.close();
    await database.close();
    throw err;
  }

  let stopping: Promise<void> | null = null;
  return {
    config,
    log,
    ...services,
    secrets: new SecretBox(secret.key),
    http,
    worker,
    url,
    stop() {
      stopping ??= (async () => {
        http?.drain();
        await worker?.stop(config.shutdownGraceSeconds * 1000);
        await http?.app.close();
        await notifier.close();
        await database.close();
      })();
      return stopping;
    },
  };
}
