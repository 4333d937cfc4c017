import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Workspaces } from '../src/git/workspace.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startRuntime } from '../src/runtime.js';
import { ScriptedModel, call, finish } from '../test/support/scripted-model.js';
import type { Row } from './api.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/mintlify-docs');
const OLD =
  "After you complete this guide, you'll have a live documentation site ready to customize and update.";

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd,
    stdio: 'pipe',
  });

function timed<T>(fn: () => T): [T, number] {
  const t = performance.now();
  const v = fn();
  return [v, performance.now() - t];
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The same change made by hand: clone, edit, commit, push. */
function bareEdit(origin: string, n: number): { total: number; clone: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-bench-bare-'));
  try {
    const [, clone] = timed(() => git(tmpdir(), 'clone', '--quiet', origin, dir));
    const [, rest] = timed(() => {
      const file = path.join(dir, 'quickstart.mdx');
      writeFileSync(file, readFileSync(file, 'utf8').replace(OLD, `${OLD} (bare ${n})`));
      git(dir, 'commit', '--quiet', '-am', 'bare edit');
      git(dir, 'push', '--quiet', 'origin', `HEAD:refs/heads/bench-bare-${n}`);
    });
    return { total: clone + rest, clone };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Agent overhead (wall time minus model time) for one scripted edit on the Mintlify corpus, cold
 * (no mirror) and warm (mirror cached), next to a bare clone + commit + push of the same change;
 * and the warm start (mirror fetch + worktree) next to a cold clone.
 */
export async function benchAgent(): Promise<Row[]> {
  if (!existsSync(CORPUS))
    return [
      {
        benchmark: 'agent overhead',
        figure: 'skipped: corpus missing',
        baseline: '-',
        ratio: '-',
        goal: '-',
      },
    ];
  const work = mkdtempSync(path.join(tmpdir(), 'redline-bench-agent-'));
  const origin = path.join(work, 'origin');
  cpSync(CORPUS, origin, { recursive: true });
  git(origin, 'init', '--quiet', '-b', 'main');
  git(origin, 'add', '-A');
  git(origin, 'commit', '--quiet', '-m', 'docs');
  // Warm the page cache so the first measurement is not a disk-read outlier.
  bareEdit(origin, 0);

  const model = await new ScriptedModel().start();
  const runtime = await startRuntime({
    config: loadConfig({
      REDLINE_DATA_DIR: path.join(work, 'data'),
      REDLINE_DATABASE_URL: '',
      REDLINE_MODEL: 'openai-compatible:bench',
      REDLINE_OPENAI_COMPATIBLE_URL: model.url,
      REDLINE_SECRET_KEY: 'bench-secret-bench-secret-bench-secret',
    }),
    log: createLogger('silent'),
    http: false,
  });
  try {
    const project = await runtime.projects.create({ name: 'bench', repository: origin });
    const agentRun = async (n: number) => {
      model.push(
        call('edit_file', { path: 'quickstart.mdx', old_string: OLD, new_string: `${OLD} (agent ${n})` }),
        finish(`Bench edit ${n}`, 'One sentence changed.'),
      );
      const modelBefore = model.busyMs;
      const t = performance.now();
      const { body } = await runtime.jobs.create(project, {
        prompt: `edit ${n}`,
        model: 'openai-compatible:bench',
      });
      for (;;) {
        const job = await runtime.jobs.get(project, body.id);
        if (job.status !== 'active') {
          if (job.status !== 'completed' || !job.prLink)
            throw new Error(`bench job ended ${job.status}: ${JSON.stringify(job.error)}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      const wall = performance.now() - t;
      return wall - (model.busyMs - modelBefore);
    };
    const cold = await agentRun(1);
    const bareCold = bareEdit(origin, 1);
    const warm: number[] = [];
    const bare: number[] = [];
    for (let i = 2; i <= 4; i++) {
      warm.push(await agentRun(i));
      bare.push(bareEdit(origin, i).total);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

    // Start of a run alone: fetch into the cached mirror and add a worktree, against a cold clone.
    const ws = new Workspaces(path.join(work, 'data'), { name: 'bench', email: 'bench@example.com' });
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const wt = await ws.checkout(origin, 'main', 'redline/none');
      starts.push(performance.now() - t);
      await ws.remove(origin, wt);
    }
    const clones = [10, 11, 12].map((n) => bareEdit(origin, n).clone);

    return [
      {
        benchmark: 'agent overhead, one edit on the corpus, cold (no mirror)',
        figure: secs(cold),
        baseline: `bare clone + commit + push: ${secs(bareCold.total)}`,
        ratio: `${(cold / bareCold.total).toFixed(2)}x`,
        goal: '<= 1.5x',
      },
      {
        benchmark: 'agent overhead, one edit on the corpus, warm mirror (median of 3)',
        figure: secs(median(warm)),
        baseline: `bare clone + commit + push: ${secs(median(bare))}`,
        ratio: `${(median(warm) / median(bare)).toFixed(2)}x`,
        goal: '-',
      },
      {
        benchmark: 'warm start: mirror fetch + worktree (median of 3)',
        figure: secs(median(starts)),
        baseline: `cold git clone: ${secs(median(clones))}`,
        ratio: `${(median(starts) / median(clones)).toFixed(2)}x`,
        goal: '<= 0.3x',
      },
    ];
  } finally {
    await runtime.stop();
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
}
