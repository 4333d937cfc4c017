import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Row {
  benchmark: string;
  figure: string;
  baseline: string;
  ratio: string;
  goal: string;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
}

async function load(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: string,
): Promise<Load> {
  const r = await autocannon({
    url,
    method,
    headers,
    body,
    connections: 16,
    duration: Number(process.env.BENCH_SECONDS ?? 5),
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${method} ${url}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

const fmt = (l: Load) => `${Math.round(l.rps)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms`;

/** GET and POST job throughput and latency against a bare Fastify route returning the same JSON. */
export async function benchApi(databaseUrl: string | null): Promise<Row[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/api-target.ts')], {
    cwd: ROOT,
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const t = JSON.parse(line.toString()) as {
    redline: string;
    jobId: string;
    key: string;
    bare: string;
    dialect: string;
  };
  try {
    const auth = { authorization: `Bearer ${t.key}` };
    const json = { ...auth, 'content-type': 'application/json' };
    // Warm both up so JIT and connection set-up are not measured.
    await autocannon({ url: `${t.bare}/job`, connections: 4, amount: 2000 });
    await autocannon({ url: `${t.redline}/job/${t.jobId}`, headers: auth, connections: 4, amount: 2000 });
    const bareGet = await load(`${t.bare}/job`, 'GET', {});
    const getJob = await load(`${t.redline}/job/${t.jobId}`, 'GET', auth);
    const barePost = await load(
      `${t.bare}/job`,
      'POST',
      { 'content-type': 'application/json' },
      '{"prompt":"x"}',
    );
    const postJob = await load(`${t.redline}/job`, 'POST', json, '{"prompt":"Document the --since flag"}');
    return [
      {
        benchmark: `GET job [${t.dialect}]`,
        figure: fmt(getJob),
        baseline: `bare Fastify: ${fmt(bareGet)}`,
        ratio: `${((100 * getJob.rps) / bareGet.rps).toFixed(0)} % of bare`,
        goal: '>= 50 %',
      },
      {
        benchmark: `POST job [${t.dialect}]`,
        figure: fmt(postJob),
        baseline: `bare Fastify: ${fmt(barePost)}`,
        ratio: `${((100 * postJob.rps) / barePost.rps).toFixed(0)} % of bare`,
        goal: '-',
      },
    ];
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
