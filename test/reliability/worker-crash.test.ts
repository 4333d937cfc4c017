import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { spawnTs, waitUntil } from '../support/processes.js';
import type { Proc } from '../support/processes.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

describeEachDialect('a worker killed with SIGKILL mid-run', (dialect) => {
  let s: TestServer;
  const procs: Proc[] = [];
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await s?.close();
  });

  it('loses its run to another worker once the lease expires; the job ends in exactly one terminal state', async () => {
    const log = path.join(s.database.dataDir, 'executions.log');
    const env = { ...s.database.env, REDLINE_LEASE_SECONDS: '1', REDLINE_TEST_EXEC_LOG: log };
    const id = (await s.api('POST', 'job', { prompt: 'crash me' })).json().id;

    const doomed = spawnTs('test/support/worker-process.ts', [], { ...env, REDLINE_TEST_EXEC_MS: '600000' });
    procs.push(doomed);
    await waitUntil(
      async () => existsSync(log) && readFileSync(log, 'utf8').includes('start'),
      'the first execution',
    );
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');

    const rescuer = spawnTs('test/support/worker-process.ts', [], { ...env, REDLINE_TEST_EXEC_MS: '0' });
    procs.push(rescuer);
    const job = await waitUntil(async () => {
      const j = (await s.api('GET', `job/${id}`)).json();
      return j.status !== 'active' && j;
    }, 'the job to end');
    expect(job.status).toBe('completed');
    expect(job.summary).toBe(`executed by ${rescuer.child.pid}`);

    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith('start'))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('done'))).toEqual([
      expect.stringContaining(String(rescuer.child.pid)),
    ]);
    const runs = await s.runtime.database.db
      .selectFrom('runs')
      .selectAll()
      .where('job_id', '=', id)
      .execute();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'succeeded', attempts: 2, lease_owner: null });
    // Still one terminal state a while later: nothing else touches the job.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await s.api('GET', `job/${id}`)).json()).toEqual(job);
    rescuer.child.kill('SIGTERM');
    expect((await rescuer.exited).code).toBe(0);
  });
});
