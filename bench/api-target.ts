// The servers the API benchmark loads, in a process of their own so the load generator does not
// share their event loop: Redline (GET/POST job) and a bare Fastify app answering the same JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startRuntime } from '../src/runtime.js';
import { makeBenchRepo } from './repo.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-'));
const runtime = await startRuntime({
  config: loadConfig({
    REDLINE_DATA_DIR: dataDir,
    REDLINE_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
    REDLINE_PORT: '0',
    REDLINE_MODEL: 'openai-compatible:bench',
    REDLINE_OPENAI_COMPATIBLE_URL: 'http://127.0.0.1:9/v1',
    REDLINE_RATE_LIMIT_PER_HOUR: '1000000',
    REDLINE_SECRET_KEY: 'bench-secret-bench-secret-bench-secret',
  }),
  log: createLogger('silent'),
  worker: false,
});
const project = await runtime.projects.create({ name: 'bench', repository: makeBenchRepo(dataDir) });
const { key } = await runtime.keys.create(project.id);
const job = await runtime.jobs.create(project, { prompt: 'bench', model: 'openai-compatible:bench' });
const body = JSON.stringify(job.body);

const bare = Fastify();
bare.get('/job', async (_req, reply) => reply.type('application/json').send(body));
bare.post('/job', async (_req, reply) => reply.code(201).type('application/json').send(body));
await bare.listen({ port: 0, host: '127.0.0.1' });
const { port } = bare.server.address() as { port: number };

process.stdout.write(
  JSON.stringify({
    redline: `${runtime.url}/v2/agent/${project.id}`,
    jobId: job.body.id,
    key,
    bare: `http://127.0.0.1:${port}`,
    dialect: runtime.database.dialect,
  }) + '\n',
);
process.on('SIGTERM', async () => {
  await bare.close();
  await runtime.stop();
  process.exit(0);
});
