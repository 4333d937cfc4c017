import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobFailure } from '../../src/jobs/executor.js';
import type { RunContext, RunExecutor } from '../../src/jobs/executor.js';
import { claimRun, completeRun, releaseRun, renewLease } from '../../src/jobs/queue.js';
import { Worker } from '../../src/jobs/worker.js';
import { createLogger } from '../../src/log.js';
import { describeEachDialect } from '../support/databases.js';
import { waitUntil } from '../support/processes.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

describeEachDialect('queue', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  const db = () => s.runtime.database.db;
  const claim = (owner: string, leaseMs = 30_000, now?: number) =>
    claimRun(db(), s.runtime.database.dialect, owner, leaseMs, now);
  const drain = async () => {
    while (await claim('drainer')) {
      /* leave nothing claimable behind for the next test */
    }
  };

  it('claims oldest first, one run per job at a time, follow-ups in order', async () => {
    await drain();
    const a = (await s.api('POST', 'job', { prompt: 'a1' })).json().id;
    const b = (await s.api('POST', 'job', { prompt: 'b1' })).json().id;
    await s.api('POST', `job/${a}/message`, { prompt: 'a2' });
    const first = await claim('w1');
    expect(first).toMatchObject({ job_id: a, seq: 1, status: 'running', attempts: 1, lease_owner: 'w1' });
    const second = await claim('w2');
    // a2 waits behind a1, so the next claim is b1.
    expect(second).toMatchObject({ job_id: b, seq: 1 });
    expect(await claim('w3')).toBeNull();
    expect(await completeRun(db(), first!, 'w1', { status: 'succeeded', summary: 'done' })).toBe(true);
    // a2 is queued, so the job stays active after a1.
    expect((await s.api('GET', `job/${a}`)).json()).toMatchObject({ status: 'active', summary: 'done' });
    const third = await claim('w3');
    expect(third).toMatchObject({ job_id: a, seq: 2, prompt: 'a2' });
    await completeRun(db(), third!, 'w3', {
      status: 'failed',
      error: { code: 'agent_unavailable', message: 'no agent' },
    });
    expect((await s.api('GET', `job/${a}`)).json()).toMatchObject({
      status: 'failed',
      error: { code: 'agent_unavailable', message: 'no agent' },
    });
    await completeRun(db(), second!, 'w2', { status: 'succeeded', prLink: 'http://x/pr/1' });
    expect((await s.api('GET', `job/${b}`)).json()).toMatchObject({
      status: 'completed',
      prLink: 'http://x/pr/1',
    });
  });

  it('reclaims a run whose lease expired, and ignores the old owner afterwards', async () => {
    await drain();
    const id = (await s.api('POST', 'job', { prompt: 'lease' })).json().id;
    const now = Date.now();
    const run = await claim('dead-worker', 1000, now);
    expect(run).not.toBeNull();
    expect(await claim('w2', 1000, now + 500)).toBeNull();
    const again = await claim('w2', 30_000, now + 1500);
    expect(again).toMatchObject({ id: run!.id, attempts: 2, lease_owner: 'w2' });
    expect(await renewLease(db(), s.runtime.database.dialect, run!.id, 'dead-worker', 1000)).toBe(false);
    expect(await completeRun(db(), run!, 'dead-worker', { status: 'succeeded' })).toBe(false);
    expect((await s.api('GET', `job/${id}`)).json().status).toBe('active');
    expect(await renewLease(db(), s.runtime.database.dialect, run!.id, 'w2', 30_000)).toBe(true);
    expect(await completeRun(db(), again!, 'w2', { status: 'succeeded' })).toBe(true);
    expect((await s.api('GET', `job/${id}`)).json().status).toBe('completed');
  });

  it('release puts a run back without counting an attempt', async () => {
    await drain();
    await s.api('POST', 'job', { prompt: 'release' });
    const run = await claim('w1');
    await releaseRun(db(), run!.id, 'w1');
    expect(await claim('w2')).toMatchObject({ id: run!.id, attempts: 1 });
  });

  it('archiving cancels the running run: its completion is ignored and the job stays archived', async () => {
    await drain();
    const id = (await s.api('POST', 'job', { prompt: 'archive me' })).json().id;
    const run = await claim('w1');
    await s.api('POST', `job/${id}/archive`);
    expect(await renewLease(db(), s.runtime.database.dialect, run!.id, 'w1', 30_000)).toBe(false);
    expect(await completeRun(db(), run!, 'w1', { status: 'succeeded', prLink: 'http://x' })).toBe(false);
    expect((await s.api('GET', `job/${id}`)).json()).toMatchObject({ status: 'archived', prLink: null });
  });

  it('a message to a completed or failed job queues a run and clears the error', async () => {
    await drain();
    const id = (await s.api('POST', 'job', { prompt: 'x' })).json().id;
    const run = await claim('w1');
    await completeRun(db(), run!, 'w1', { status: 'failed', error: { code: 'timeout', message: 't' } });
    const res = (await s.api('POST', `job/${id}/message`, { prompt: 'retry' })).json();
    expect(res).toMatchObject({ status: 'active', error: null });
    expect(await claim('w2')).toMatchObject({ job_id: id, seq: 2 });
  });
});

describeEachDialect('worker', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  function worker(executor: RunExecutor, leaseMs = 30_000) {
    const w = new Worker({
      db: s.runtime.database.db,
      dialect: s.runtime.database.dialect,
      notifier: s.runtime.notifier,
      executor,
      log: createLogger('silent'),
      concurrency: 2,
      leaseMs,
      pollIntervalMs: 60_000,
    });
    w.start();
    return w;
  }

  it('is woken by a new job (no polling) and records a failure with its code and message', async () => {
    const w = worker({
      execute: async () => {
        throw new JobFailure('agent_unavailable', 'There is no docs agent in this test.');
      },
    });
    try {
      const id = (await s.api('POST', 'job', { prompt: 'document it' })).json().id;
      const job = await waitUntil(async () => {
        const j = (await s.api('GET', `job/${id}`)).json();
        return j.status !== 'active' && j;
      }, 'the job to end');
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('agent_unavailable');
      expect(job.error.message).toBe('There is no docs agent in this test.');
      const messages = (await s.api('GET', `job/${id}/messages`)).json().messages;
      expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'system']);
    } finally {
      await w.stop(1000);
    }
  });

  it('passes the executor its run, job and project, and records success', async () => {
    const seen: RunContext[] = [];
    const w = worker({
      async execute(ctx) {
        seen.push(ctx);
        return { summary: `did: ${ctx.run.prompt}`, prLink: null };
      },
    });
    try {
      const id = (await s.api('POST', 'job', { prompt: 'edit' })).json().id;
      const job = await waitUntil(async () => {
        const j = (await s.api('GET', `job/${id}`)).json();
        return j.status === 'completed' && j;
      }, 'completion');
      expect(job).toMatchObject({ summary: 'did: edit', prLink: null, error: null });
      expect(seen[0]!.project.id).toBe(s.project.id);
      expect(seen[0]!.job.id).toBe(id);
    } finally {
      await w.stop(1000);
    }
  });

  it('aborts a running executor when its job is archived', async () => {
    let aborted = false;
    let started = false;
    const w = worker({
      execute: (ctx) =>
        new Promise((_resolve, reject) => {
          started = true;
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new JobFailure('internal', 'aborted'));
          });
        }),
    });
    try {
      const id = (await s.api('POST', 'job', { prompt: 'long' })).json().id;
      await waitUntil(async () => started, 'the run to start');
      await s.api('POST', `job/${id}/archive`);
      await waitUntil(async () => aborted, 'the abort');
      expect((await s.api('GET', `job/${id}`)).json().status).toBe('archived');
    } finally {
      await w.stop(1000);
    }
  });

  it('on stop, waits for running work within the grace period, then releases what is left', async () => {
    let release: () => void = () => undefined;
    const w = worker({
      execute: (ctx) =>
        new Promise((resolve, reject) => {
          release = () => resolve({ summary: 'finished in grace', prLink: null });
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    });
    const id = (await s.api('POST', 'job', { prompt: 'graceful' })).json().id;
    await waitUntil(async () => w.activeRuns === 1, 'the run to start');
    const stopping = w.stop(10_000);
    setTimeout(() => release(), 100);
    await stopping;
    expect((await s.api('GET', `job/${id}`)).json()).toMatchObject({
      status: 'completed',
      summary: 'finished in grace',
    });

    const w2 = worker({
      execute: (ctx) =>
        new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('x')))),
    });
    const id2 = (await s.api('POST', 'job', { prompt: 'too slow' })).json().id;
    await waitUntil(async () => w2.activeRuns === 1, 'the run to start');
    await w2.stop(50);
    const run = await s.runtime.database.db
      .selectFrom('runs')
      .selectAll()
      .where('job_id', '=', id2)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({ status: 'queued', lease_owner: null, attempts: 0 });
    expect((await s.api('GET', `job/${id2}`)).json().status).toBe('active');
    await s.api('POST', `job/${id2}/archive`);
  });
});
