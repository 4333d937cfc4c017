// `npm run bench`: every figure next to a baseline measured in the same run. Postgres figures
// are included when BENCH_DATABASE_URL (or REDLINE_TEST_DATABASE_URL) points at a database.
import os from 'node:os';
import pg from 'pg';
import { benchAgent } from './agent.js';
import { benchApi } from './api.js';
import { benchConcurrentRuns } from './concurrent-runs.js';
import type { Row } from './api.js';
import { benchMemory } from './memory.js';
import { benchQueue } from './queue.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.REDLINE_TEST_DATABASE_URL || null;
const created: string[] = [];

async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL! });
  await c.connect();
  await c.query(query);
  await c.end();
}

/** An empty database per benchmark, so no benchmark starts with another's backlog. */
async function freshPostgres(): Promise<string> {
  const name = `redline_bench_${process.pid}_${created.length}`;
  await admin(`CREATE DATABASE ${name}`);
  created.push(name);
  const u = new URL(ADMIN_URL!);
  u.pathname = `/${name}`;
  return u.toString();
}

const rows: Row[] = [];
try {
  rows.push(...(await benchApi(null)));
  rows.push(...(await benchQueue(null)));
  if (ADMIN_URL) {
    rows.push(...(await benchApi(await freshPostgres())));
    rows.push(...(await benchQueue(await freshPostgres())));
  }
  rows.push(...(await benchAgent()));
  rows.push(...(await benchMemory()));
  rows.push(...(await benchConcurrentRuns()));
} finally {
  for (const name of created) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `\nRedline benchmarks: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
);
const cols: (keyof Row)[] = ['benchmark', 'figure', 'baseline', 'ratio', 'goal'];
console.log(`| ${cols.join(' | ')} |`);
console.log(`| ${cols.map(() => '---').join(' | ')} |`);
for (const r of rows) console.log(`| ${cols.map((c) => r[c]).join(' | ')} |`);
if (!ADMIN_URL)
  console.log('\n(Postgres rows omitted: set BENCH_DATABASE_URL=postgres://… to include them.)');
