import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Row } from './api.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function rssOf(args: string[], env: Record<string, string>, ready: RegExp): Promise<number> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const on = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve();
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', () => reject(new Error(`exited before ready:\n${out}`)));
  });
  await new Promise((r) => setTimeout(r, 2000));
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  child.kill('SIGTERM');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Idle RSS of `redline serve` (API + worker, built) next to a bare Fastify process. */
export async function benchMemory(): Promise<Row[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-mem-'));
  const redline = await rssOf(
    ['bin/redline.js', 'serve', '--port', '0'],
    { REDLINE_DATA_DIR: dataDir, REDLINE_DATABASE_URL: '', REDLINE_LOG_LEVEL: 'info' },
    /Redline listening/,
  );
  const bare = await rssOf(
    [
      '-e',
      "const f=require('fastify')();f.get('/',async()=>({}));f.listen({port:0}).then(()=>console.log('ready'))",
    ],
    {},
    /ready/,
  );
  return [
    {
      benchmark: 'idle RSS, `redline serve` (SQLite, worker on)',
      figure: `${redline.toFixed(0)} MiB`,
      baseline: `bare Fastify process: ${bare.toFixed(0)} MiB`,
      ratio: `${(redline / bare).toFixed(1)}x`,
      goal: '-',
    },
  ];
}
