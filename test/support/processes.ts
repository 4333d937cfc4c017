import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Proc {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a TypeScript entry point of this repository in a child process (through tsx). */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      REDLINE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters) w();
    }),
  );
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in output:\n${out.slice(-3000)}`));
        }, ms);
        const check = () => {
          if (pattern.test(out)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`process exited before ${pattern}; output:\n${out.slice(-3000)}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The `redline` CLI from source, as `npx redline …` runs it from dist. */
export const redline = (args: string[], env: Record<string, string>) => spawnTs('src/cli/main.ts', args, env);

export async function runRedline(args: string[], env: Record<string, string>) {
  const p = redline(args, env);
  const { code } = await p.exited;
  return { code, output: p.output() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function waitUntil<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
