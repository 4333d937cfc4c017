import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { PostgresNotifier } from '../src/jobs/notifier.js';
import { createLogger } from '../src/log.js';
import { startRuntime } from '../src/runtime.js';
import type { Row } from './api.js';
import { makeBenchRepo } from './repo.js';

const RUNS = Number(process.env.BENCH_QUEUE_RUNS ?? 200);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/**
 * Create → claimed latency over RUNS jobs, one at a time on an idle worker, next to the cost of
 * the create transaction alone (the floor no queue can beat) measured in the same loop.
 */
export async function benchQueue(databaseUrl: string | null): Promise<Row[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-queue-'));
  // The claim can happen before create() returns, so a claim time may arrive before its waiter.
  const claimedAt = new Map<string, number>();
  const waiters = new Map<string, (t: number) => void>();
  const runtime = await startRuntime({
    config: loadConfig({
      REDLINE_DATA_DIR: dataDir,
      REDLINE_DATABASE_URL: databaseUrl ?? '',
      REDLINE_MODEL: 'openai-compatible:bench',
      REDLINE_OPENAI_COMPATIBLE_URL: 'http://127.0.0.1:9/v1',
      REDLINE_SECRET_KEY: 'bench-secret-bench-secret-bench-secret',
    }),
    log: createLogger('silent'),
    http: false,
    // Far longer than any pickup, so every claim measured here came from a wake-up, not the poll.
    pollIntervalMs: 60_000,
    executor: {
      async execute({ job }) {
        const t = performance.now();
        const waiter = waiters.get(job.id);
        if (waiter) waiter(t);
        else claimedAt.set(job.id, t);
        return { summary: null, prLink: null };
      },
    },
  });
  try {
    if (runtime.notifier instanceof PostgresNotifier) await runtime.notifier.ready();
    const project = await runtime.projects.create({ name: 'bench', repository: makeBenchRepo(dataDir) });
    const pickup: number[] = [];
    const insert: number[] = [];
    for (let i = 0; i < RUNS + 10; i++) {
      const t0 = performance.now();
      const created = await runtime.jobs.create(project, {
        prompt: `job ${i}`,
        model: 'openai-compatible:bench',
      });
      const t1 = performance.now();
      const id = created.body.id;
      const claimed = claimedAt.has(id)
        ? Promise.resolve(claimedAt.get(id)!)
        : new Promise<number>((r) => waiters.set(id, r));
      let timer: NodeJS.Timeout | undefined;
      const t2 = await Promise.race([
        claimed,
        new Promise<number>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`run of ${id} not claimed within 10 s`)), 10_000);
        }),
      ]);
      clearTimeout(timer);
      // The first few warm up JIT and connections.
      if (i >= 10) {
        pickup.push(t2 - t0);
        insert.push(t1 - t0);
      }
    }
    const dialect = runtime.database.dialect;
    const goal = dialect === 'sqlite' ? 25 : 50;
    return [
      {
        benchmark: `queue pickup, create → claimed [${dialect}]`,
        figure: `p50 ${pct(pickup, 50).toFixed(1)} ms, p99 ${pct(pickup, 99).toFixed(1)} ms (${RUNS} runs)`,
        baseline: `create transaction alone: p50 ${pct(insert, 50).toFixed(1)} ms, p99 ${pct(insert, 99).toFixed(1)} ms`,
        ratio: `${(pct(pickup, 50) / pct(insert, 50)).toFixed(1)}x`,
        goal: `p50 <= ${goal} ms`,
      },
    ];
  } finally {
    await runtime.stop();
  }
}
