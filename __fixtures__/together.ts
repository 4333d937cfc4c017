// Runs in flight at once, in this process: two runners' steps, each with its own environment,
// output files and log, whose requests reach GitHub and the service in an order the test chooses,
// one request at a time. Each run is `run()` from the sources, as `runInProcess` runs it; what
// differs is that the runner's environment is the run's own through an AsyncLocalStorage (two
// runs cannot share `process.env`), and that a gate in front of each emulator holds every request
// while both runs are in flight until both are held, then lets one run's go: so the order is the
// test's, never the machine's.
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import type { RunDeps } from '../src/main.js';
import { IN_PROCESS_SUMMARY, prepareRun, readResult, type RunOptions, type RunResult } from './runner.js';

interface Slot {
  env: Record<string, string | undefined>;
  stdout: string;
  stderr: string;
}

const slots = new AsyncLocalStorage<Slot>();
let installed:
  | {
      count: number;
      env: NodeJS.ProcessEnv;
      out: typeof process.stdout.write;
      err: typeof process.stderr.write;
    }
  | undefined;

/** `process.env`, stdout and stderr as the run in whose async context they are used sees them. */
function install(): void {
  if (installed) {
    installed.count++;
    return;
  }
  const env = process.env;
  const own = () => slots.getStore()?.env ?? env;
  process.env = new Proxy(
    {},
    {
      get: (_, name) => (typeof name === 'string' ? own()[name] : undefined),
      set: (_, name, value) => {
        if (typeof name === 'string') own()[name] = String(value);
        return true;
      },
      has: (_, name) => typeof name === 'string' && name in own(),
      deleteProperty: (_, name) => {
        if (typeof name === 'string') delete own()[name];
        return true;
      },
      ownKeys: () => Object.keys(own()),
      getOwnPropertyDescriptor: (_, name) => {
        const values = own();
        if (typeof name !== 'string' || !(name in values)) return undefined;
        return { value: values[name], writable: true, enumerable: true, configurable: true };
      },
    },
  );
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
    const slot = slots.getStore();
    if (!slot) return out(chunk, ...rest);
    slot.stdout += String(chunk);
    return true;
  };
  process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]) => {
    const slot = slots.getStore();
    if (!slot) return err(chunk, ...rest);
    slot.stderr += String(chunk);
    return true;
  };
  installed = { count: 1, env, out, err };
}

function uninstall(): void {
  if (!installed || --installed.count > 0) return;
  process.env = installed.env;
  process.stdout.write = installed.out;
  process.stderr.write = installed.err;
  installed = undefined;
}

/**
 * One step of a run, in its own environment (the runner's, as `runInProcess` prepares it), beside
 * any other step in flight. Its code is 1 when the step failed: `core.setFailed` is the only thing
 * of the action that prints an `::error::` line (`process.exitCode` is one for the process).
 */
export async function runBeside(options: RunOptions, deps: RunDeps = {}): Promise<RunResult> {
  const { files, env } = prepareRun(options);
  files.GITHUB_STEP_SUMMARY = env.GITHUB_STEP_SUMMARY = IN_PROCESS_SUMMARY;
  const { run } = await import('../src/main.js');
  const slot: Slot = { env, stdout: '', stderr: '' };
  install();
  try {
    writeFileSync(IN_PROCESS_SUMMARY, '');
    await slots.run(slot, () => run(deps));
  } finally {
    uninstall();
    process.exitCode = undefined;
  }
  const code = /^::error::/m.test(slot.stdout) ? 1 : 0;
  return readResult({ code, signal: null, stdout: slot.stdout, stderr: slot.stderr }, files);
}

/**
 * Whose turn it is: while two or more runs are in flight, a request waits until every run in
 * flight has one waiting, and then `choose` picks the run (in the order they started) whose
 * requests go. A run is known by the run id its User-Agent names (the action's own, which links its
 * workflow run). With one run in flight, requests go at once.
 */
export class Turns {
  private readonly live: string[] = [];
  private readonly held = new Map<string, (() => void)[]>();
  /** Which run went, turn by turn, for a failure's story. */
  readonly story: string[] = [];

  constructor(private readonly choose: (among: number) => number) {}

  enter(run: string): void {
    this.live.push(run);
  }

  leave(run: string): void {
    this.live.splice(this.live.indexOf(run), 1);
    this.next();
  }

  /** Resolves when the request of `run` may go. */
  wait(run: string | undefined): Promise<void> {
    if (run === undefined || !this.live.includes(run) || this.live.length < 2) return Promise.resolve();
    return new Promise((resolve) => {
      this.held.set(run, [...(this.held.get(run) ?? []), resolve]);
      this.next();
    });
  }

  private next(): void {
    if (this.live.length >= 2 && this.live.some((run) => !this.held.has(run))) return;
    const ready =
      this.live.length >= 2
        ? [this.live[this.choose(this.live.length) % this.live.length] ?? '']
        : [...this.held.keys()];
    for (const run of ready) {
      const waiting = this.held.get(run) ?? [];
      this.held.delete(run);
      if (this.live.length >= 2) this.story.push(run);
      for (const go of waiting) go();
    }
  }
}

/** The run id in the action's User-Agent (`… (+https://…/actions/runs/<id>)`). */
function runOf(request: http.IncomingMessage): string | undefined {
  return /\/actions\/runs\/(\d+)\)/.exec(String(request.headers['user-agent'] ?? ''))?.[1];
}

/**
 * A loopback HTTP server that forwards every request to `target`'s host (an emulator), unchanged,
 * once `turns` lets it go. Its URL (with `target`'s path) takes the emulator's place in the runs'
 * environment.
 */
export async function gateTo(
  target: string,
  turns: Turns,
): Promise<{ url: string; close: () => Promise<void> }> {
  const to = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void turns.wait(runOf(request)).then(() => {
        const forwarded = http.request(
          {
            host: to.hostname,
            port: to.port,
            method: request.method,
            path: request.url,
            headers: { ...request.headers, host: to.host },
            agent,
          },
          (reply) => {
            response.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(response);
          },
        );
        forwarded.on('error', () => response.destroy());
        forwarded.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
