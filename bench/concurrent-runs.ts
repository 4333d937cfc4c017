import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScriptedModel, call, finish } from '../test/support/scripted-model.js';
import type { Row } from './api.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/mintlify-docs');
const RUNS = 8;
const OLD =
  "After you complete this guide, you'll have a live documentation site ready to customize and update.";

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * Peak RSS of `redline serve` (built, SQLite) while 8 agent runs on the Mintlify corpus are in
 * flight at once, next to the same process idle. Each model answer takes a second, so the runs
 * overlap the way real ones do.
 */
export async function benchConcurrentRuns(): Promise<Row[]> {
  if (!existsSync(CORPUS)) return [];
  const work = mkdtempSync(path.join(tmpdir(), 'redline-bench-rss-'));
  const origin = path.join(work, 'origin');
  cpSync(CORPUS, origin, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=b@example.com', ...args], {
      cwd: origin,
      stdio: 'pipe',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'docs');

  const model = await new ScriptedModel().start();
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env = {
    ...process.env,
    REDLINE_DATA_DIR: path.join(work, 'data'),
    REDLINE_DATABASE_URL: '',
    REDLINE_PORT: String(port),
    REDLINE_WORKER_CONCURRENCY: String(RUNS),
    REDLINE_MODEL: 'openai-compatible:bench',
    REDLINE_OPENAI_COMPATIBLE_URL: model.url,
    REDLINE_LOG_LEVEL: 'warn',
  };
  const cli = (...args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, ['bin/redline.js', ...args], { cwd: ROOT, env, encoding: 'utf8' }),
    );
  const project = cli('project', 'create', '--name', 'bench', '--repository', origin, '--json');
  const { key } = cli('key', 'create', '--project', project.id, '--json');
  const server = spawn(process.execPath, ['bin/redline.js', 'serve'], { cwd: ROOT, env, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}/v2/agent/${project.id}`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  try {
    for (let i = 0; ; i++) {
      if (i > 100) throw new Error('redline serve did not start');
      if (
        await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // One warm-up job fills the mirror, as a server that has run before would have it.
    const scriptRun = (n: number) => {
      model.push(
        { delayMs: 1000, reply: call('search', { pattern: 'live documentation site', glob: '*.mdx' }) },
        {
          delayMs: 1000,
          reply: call('edit_file', { path: 'quickstart.mdx', old_string: OLD, new_string: `${OLD} (${n})` }),
        },
        { delayMs: 1000, reply: finish(`Edit ${n}`, 'One sentence.') },
      );
    };
    const waitAll = async (ids: string[], sample: () => void) => {
      for (;;) {
        sample();
        const jobs = await Promise.all(
          ids.map((id) =>
            fetch(`${base}/job/${id}`, { headers }).then((r) => r.json() as Promise<{ status: string }>),
          ),
        );
        if (jobs.every((j) => j.status !== 'active')) {
          if (jobs.some((j) => j.status !== 'completed'))
            throw new Error(`bench jobs ended ${jobs.map((j) => j.status).join(',')}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const post = async () =>
      (
        (await (
          await fetch(`${base}/job`, { method: 'POST', headers, body: '{"prompt":"edit"}' })
        ).json()) as { id: string }
      ).id;
    // The script is one queue that interleaved runs take steps from in any order; each run works
    // in its own worktree from main, so every step is valid for whichever run takes it.
    scriptRun(0);
    await waitAll([await post()], () => undefined);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rss(server.pid!);
    for (let n = 1; n <= RUNS; n++) scriptRun(n);
    const ids = await Promise.all(Array.from({ length: RUNS }, post));
    let peak = 0;
    await waitAll(ids, () => (peak = Math.max(peak, rss(server.pid!))));
    return [
      {
        benchmark: `RSS with ${RUNS} concurrent agent runs on the corpus`,
        figure: `peak ${peak.toFixed(0)} MiB`,
        baseline: `same server idle: ${idle.toFixed(0)} MiB`,
        ratio: `${(peak / idle).toFixed(1)}x`,
        goal: '-',
      },
    ];
  } finally {
    server.kill('SIGTERM');
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
}
