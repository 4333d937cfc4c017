import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import type { RunExecutor } from '../../src/jobs/executor.js';
import { createLogger } from '../../src/log.js';
import type { Project } from '../../src/projects/projects.js';
import { startRuntime } from '../../src/runtime.js';
import type { Runtime } from '../../src/runtime.js';
import { createTestDatabase } from './databases.js';
import type { DialectName, TestDatabase } from './databases.js';
import { makeDocsRepo } from './repos.js';

export interface TestServer {
  runtime: Runtime;
  database: TestDatabase;
  project: Project;
  key: string;
  /** Every log line the server wrote, for checks that no secret was logged. */
  logs: string[];
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** An authenticated request against the test project. */
  api(
    method: InjectOptions['method'],
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Row counts of every table a request could write to. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** The project's repository; a small one is made when absent. */
  repository?: string;
  worker?: boolean;
  executor?: RunExecutor;
}

export async function startTestServer(dialect: DialectName, o: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase(dialect);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const config = loadConfig({
    REDLINE_MODEL: 'openai-compatible:test-model',
    REDLINE_OPENAI_COMPATIBLE_URL: 'http://127.0.0.1:9/v1',
    REDLINE_SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
    REDLINE_PORT: '0',
    REDLINE_PUBLIC_URL: 'http://redline.test',
    ...database.env,
    ...o.env,
  });
  const runtime = await startRuntime({
    config,
    log: createLogger('info', sink),
    worker: o.worker ?? false,
    executor: o.executor,
  });
  const repo = o.repository ?? makeDocsRepo();
  const project = await runtime.projects.create({ name: 'Docs', repository: repo });
  const { key } = await runtime.keys.create(project.id, 'test');
  const app = runtime.http!.app;
  const server: TestServer = {
    runtime,
    database,
    project,
    key,
    logs,
    inject: (opts) => app.inject(opts),
    api: (method, path, body, headers = {}) =>
      app.inject({
        method,
        url: path.startsWith('/') ? path : `/v2/agent/${project.id}/${path}`,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        payload: body === undefined ? undefined : JSON.stringify(body),
      }),
    async counts() {
      const db = runtime.database.db;
      const tables = [
        'projects',
        'api_keys',
        'jobs',
        'runs',
        'messages',
        'idempotency_keys',
        'rate_limits',
      ] as const;
      const out: Record<string, number> = {};
      for (const t of tables) {
        const r = await db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        out[t] = Number(r.n);
      }
      return out;
    },
    async close() {
      await runtime.stop();
      await database.drop();
    },
  };
  return server;
}
