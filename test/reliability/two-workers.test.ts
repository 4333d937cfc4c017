import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../support/databases.js';
import { spawnTs, waitUntil } from '../support/processes.js';
import type { Proc } from '../support/processes.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

const RUNS = 200;

// Several worker processes on one database is the Postgres deployment (SQLite is one process).
describe.skipIf(!POSTGRES_URL)('two worker processes [postgres]', () => {
  let s: TestServer;
  const procs: Proc[] = [];
  beforeAll(async () => {
    s = await startTestServer('postgres', { env: { REDLINE_RATE_LIMIT_PER_HOUR: '1000' } });
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await s?.close();
  });

  it(`execute ${RUNS} runs, each exactly once`, async () => {
    const log = path.join(s.database.dataDir, 'executions.log');
    const env = {
      ...s.database.env,
      REDLINE_TEST_EXEC_LOG: log,
      REDLINE_TEST_EXEC_MS: '10',
      REDLINE_WORKER_CONCURRENCY: '4',
    };
    for (let i = 0; i < 2; i++) {
      const p = spawnTs('test/support/worker-process.ts', [], env);
      procs.push(p);
      await p.waitFor(/worker started/);
    }
    // Jobs arrive while both workers are listening: every NOTIFY wakes both, and they race to claim.
    const ids: string[] = [];
    for (let i = 0; i < RUNS / 2; i++) {
      const id = (await s.api('POST', 'job', { prompt: `job ${i}` })).json().id;
      ids.push(id);
      await s.api('POST', `job/${id}/message`, { prompt: `follow-up ${i}` });
    }
    await waitUntil(
      async () => {
        const r = await s.runtime.database.db
          .selectFrom('runs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(r.n) === RUNS;
      },
      `${RUNS} runs to succeed`,
      60_000,
    );

    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const starts = lines.filter((l) => l.startsWith('start')).map((l) => l.split(' ')[1]);
    expect(starts).toHaveLength(RUNS);
    expect(new Set(starts).size).toBe(RUNS);
    const byPid = new Map<string, number>();
    for (const l of lines.filter((x) => x.startsWith('done')))
      byPid.set(l.split(' ')[2]!, (byPid.get(l.split(' ')[2]!) ?? 0) + 1);
    console.log(`executions per worker process: ${JSON.stringify(Object.fromEntries(byPid))}`);

    const runs = await s.runtime.database.db.selectFrom('runs').selectAll().execute();
    expect(runs.every((r) => r.attempts === 1 && r.status === 'succeeded')).toBe(true);
    // Each follow-up started after its first prompt finished, in the real order the worker
    // processes appended to the execution log (database timestamps come from two clocks).
    const position = new Map(lines.map((l, i) => [l.split(' ').slice(0, 2).join(' '), i]));
    const byJob = new Map<string, typeof runs>();
    for (const r of runs) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r]);
    for (const jobRuns of byJob.values()) {
      const [first, second] = jobRuns.sort((a, b) => a.seq - b.seq);
      expect(position.get(`start ${second!.id}`)!).toBeGreaterThan(position.get(`done ${first!.id}`)!);
    }
    const jobs = await s.runtime.database.db
      .selectFrom('jobs')
      .select('status')
      .where('id', 'in', ids)
      .execute();
    expect(jobs.every((j) => j.status === 'completed')).toBe(true);

    for (const p of procs) p.child.kill('SIGTERM');
    for (const p of procs) expect((await p.exited).code).toBe(0);
  });
});
