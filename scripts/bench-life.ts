// `npm run bench`, the lives users pay for: a pull request's life played through run() in this
// process against both emulators, on a modelled clock, once with the thread step waiting for each
// agent pass (`wait: true`) and once without (`wait: false`, with a report run when each pass ends:
// the docs PR's own event in a monorepo, or the docs repository's dispatch). For each: the quota
// uses spent, the runner minutes held and billed, and the minutes from each pass's end to its
// result on GitHub. Written to docs/bench-life.json, which `npm run docs` turns into the price
// tables of README.md and docs/examples.md.
//
// The model, stated once: each agent pass takes 8 minutes (the emulator's jobs work that long on
// the model's clock); a job's set-up (runner, token, checkout) is 20 s, billed; an event reaches its
// run 15 s after it happens; GitHub keeps one pending run a concurrency group and cancels an older
// pending one (the thread's group; the report runs' own); each job is billed rounded up to the minute.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startGitHubEmulator, type GitHubEmulator } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { systemClock } from '../src/core/clock.js';
import { startGitHub } from '../src/github/index.js';
import { run } from '../src/main.js';

const ROOT = process.cwd();
const MINUTE = 60_000;
const PASS_MS = 8 * MINUTE;
const JOB_SETUP_MS = 20_000;
const EVENT_DELAY_MS = 15_000;
const START = Date.UTC(2026, 0, 5, 9);

const KEY = 'mint_bench_life_key_000000000000';
const WORKFLOW_TOKEN = 'ghs_BenchWorkflowToken0000000000000001';
const DOCS_TOKEN = 'ghs_BenchDocsToken000000000000000000002';
const APP = 'acme/app';
const DOCS = 'acme/docs';
const sha = (n: number) => n.toString(16).padStart(40, 'a');

type Happening =
  | { kind: 'open' | 'push' | 'merge'; at: number }
  | { kind: 'request'; at: number; text: string }
  | { kind: 'report'; at: number };

interface Life {
  /** Pushes straight to `main` (a branch's thread, its job kept in commit statuses), not a pull request. */
  branch?: true;
  name: string;
  /** As the README's price table names it. */
  short: string;
  followUp: 'at-merge' | 'every-push';
  happenings: Happening[];
}

const min = (m: number) => m * MINUTE;
const LIVES: Life[] = [
  {
    name: "the recipe's pull request (at-merge): opening, six pushes, two /docs, the merge",
    short: 'the recipe (`at-merge`): open, 6 pushes, 2 `/docs`, merge',
    followUp: 'at-merge',
    happenings: [
      { kind: 'open', at: 0 },
      ...[20, 40, 60, 100, 120, 140].map((m) => ({ kind: 'push' as const, at: min(m) })),
      { kind: 'request', at: min(30), text: '/docs the FAQ entry' },
      { kind: 'request', at: min(90), text: '/docs the upgrade guide' },
      { kind: 'merge', at: min(170) },
    ],
  },
  {
    name: 'a burst of five /docs while the opening pass works (at-merge)',
    short: '5 `/docs` during the first pass',
    followUp: 'at-merge',
    happenings: [
      { kind: 'open', at: 0 },
      ...[1, 2, 3, 4, 5].map((m) => ({ kind: 'request' as const, at: min(m), text: `/docs request ${m}` })),
      { kind: 'merge', at: min(60) },
    ],
  },
  {
    name: 'a busy pull request (every-push): six pushes 3 minutes apart',
    short: '`every-push`, a push every 3 min',
    followUp: 'every-push',
    happenings: [
      { kind: 'open', at: 0 },
      ...[3, 6, 9, 12, 15, 18].map((m) => ({ kind: 'push' as const, at: min(m) })),
      { kind: 'merge', at: min(60) },
    ],
  },
  {
    branch: true,
    name: 'a busy branch: six pushes straight to main, 3 minutes apart',
    short: 'a busy `main`: 6 pushes 3 min apart',
    followUp: 'every-push',
    happenings: [3, 6, 9, 12, 15, 18].map((m) => ({ kind: 'push' as const, at: min(m) })),
  },
];

interface Figures {
  uses: number;
  heldMs: number;
  billed: number;
  runs: number;
  cancelled: number;
  passes: number;
  reported: number;
  lags: number[];
}

const actionYml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};
const summaryDir = mkdtempSync(join(tmpdir(), 'bench-life-'));
const SUMMARY = join(summaryDir, 'summary');

/** One workflow run's step, as the runner starts it, in this process: its outputs. */
async function step(
  inputs: Record<string, string>,
  event: { name: string; payload: unknown },
  env: Record<string, string>,
  clock: VirtualClock,
): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-life-run-'));
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: SUMMARY,
    GITHUB_ENV: join(dir, 'env'),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  writeFileSync(join(dir, 'event.json'), JSON.stringify(event.payload));
  const runEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: dir,
    RUNNER_TEMP: dir,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_SHA: sha(999),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_ACTOR: 'octocat',
    GITHUB_WORKFLOW: 'docs',
    GITHUB_ACTION: 'docs',
    ...files,
    ...env,
  };
  for (const [name, input] of Object.entries(actionYml.inputs)) {
    const given =
      inputs[name] ?? (input.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/g, WORKFLOW_TOKEN);
    runEnv[`INPUT_${name.toUpperCase()}`] = given;
  }
  const saved = { ...process.env };
  const write = process.stdout.write.bind(process.stdout);
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, runEnv);
  process.stdout.write = () => true;
  try {
    await run({
      clock,
      github: (request, context, log) => Promise.resolve(startGitHub(request, context, log, systemClock)),
    });
  } finally {
    process.stdout.write = write;
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved);
    process.exitCode = undefined;
  }
  const outputs: Record<string, string> = {};
  const text = readFileSync(files.GITHUB_OUTPUT, 'utf8');
  for (const found of text.matchAll(/^([^<\n]+)<<(.+)\n([\s\S]*?)\n\2$/gm))
    outputs[found[1] ?? ''] = found[3] ?? '';
  rmSync(dir, { recursive: true, force: true });
  return outputs;
}

/** One life, with every run of it played in turn on the model's clock. */
async function live(life: Life, wait: boolean): Promise<Figures> {
  const gh: GitHubEmulator = await startGitHubEmulator();
  gh.grant(WORKFLOW_TOKEN, { login: 'github-actions[bot]', type: 'Bot', read: [APP], write: [APP] });
  gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
  gh.collaborator(APP, 'octocat', 'write');
  const heads = life.happenings.filter((h) => h.kind === 'open' || h.kind === 'push').length;
  const pr = gh.thread(APP, { headSha: sha(1) });
  for (let from = 1; from <= heads; from++)
    for (let to = from + 1; to <= heads; to++)
      gh.comparison(APP, `${sha(from)}...${sha(to)}`, {
        commits: [],
        files: [
          { filename: `src/f${to}.ts`, status: 'modified', additions: 1, deletions: 0, patch: '@@ +1 @@' },
        ],
      });
  const docsPr = gh.thread(DOCS);
  const clock = new VirtualClock(START);
  const passEnds: number[] = [];
  const service: Emulator = await startEmulator({
    apiKey: KEY,
    pass: { ms: PASS_MS, now: () => clock.now() },
    final: { status: 'completed', prLink: `${gh.serverUrl}/${DOCS}/pull/${docsPr.number}` },
    onReply: (request, status) => {
      const sent = request.route === 'create' || request.route === 'message';
      if (sent && typeof status === 'number' && status < 300) passEnds.push(clock.now() + PASS_MS);
    },
  });
  const inputs: Record<string, string> = {
    prompt: 'Keep the docs in step with this change.',
    ...(life.branch ? {} : { trigger: '/docs' }),
    thread: 'true',
    status: 'true',
    context: 'auto',
    followUp: life.followUp,
    projectId: 'proj_docs',
    apiKey: KEY,
    baseUrl: service.url,
    docsToken: DOCS_TOKEN,
    timeout: '45m',
    pollInterval: '10s',
    wait: String(wait),
  };
  const env = { GITHUB_API_URL: gh.apiUrl, GITHUB_SERVER_URL: gh.serverUrl, GITHUB_REPOSITORY: APP };

  const figures: Figures = {
    uses: 0,
    heldMs: 0,
    billed: 0,
    runs: 0,
    cancelled: 0,
    passes: 0,
    reported: 0,
    lags: [],
  };
  const reportedUpTo = { count: 0 };
  let head = life.branch ? 0 : 1;
  let runId = 1000;
  // Arrivals, in the order they reach GitHub's queue; each concurrency group runs one at a time
  // and keeps one pending.
  const arrivals = life.happenings.map((h) => ({ ...h, at: h.at + EVENT_DELAY_MS }));
  const groups = new Map<
    string,
    { busyUntil: number; pending?: { at: number; start: () => Promise<void> } }
  >();

  const happen = (h: Happening): { name: string; payload: unknown } => {
    const base = {
      repository: { name: 'app', owner: { login: 'acme' } },
      sender: { login: 'octocat', type: 'User' },
    };
    const pull = (action: string, extra: Record<string, unknown> = {}) => ({
      name: 'pull_request',
      payload: {
        ...base,
        action,
        number: pr.number,
        pull_request: {
          number: pr.number,
          user: { login: 'octocat' },
          head: { repo: { full_name: APP }, sha: pr.headSha },
          base: { repo: { full_name: APP } },
          ...extra,
        },
      },
    });
    if (life.branch && h.kind === 'push') {
      head++;
      gh.history(
        APP,
        Array.from({ length: head }, (_, i) => sha(head - i)),
      );
      return {
        name: 'push',
        payload: {
          ...base,
          ref: 'refs/heads/main',
          before: head === 1 ? '0'.repeat(40) : sha(head - 1),
          after: sha(head),
        },
      };
    }
    switch (h.kind) {
      case 'open':
        return pull('opened');
      case 'push':
        pr.headSha = sha(++head);
        return pull('synchronize');
      case 'merge':
        pr.merged = true;
        pr.state = 'closed';
        return pull('closed', { merged: true });
      case 'request': {
        const comment = gh.addComment(APP, pr.number, { login: 'octocat', body: h.text });
        return {
          name: 'issue_comment',
          payload: {
            ...base,
            action: 'created',
            issue: { number: pr.number, pull_request: {} },
            comment: { id: comment.id, body: comment.body, user: { login: 'octocat' } },
          },
        };
      }
      case 'report':
        return { name: 'workflow_dispatch', payload: { ...base, inputs: {} } };
    }
  };

  const play = async (h: Happening, at: number, event: { name: string; payload: unknown }) => {
    const report = h.kind === 'report';
    clock.time = at + JOB_SETUP_MS;
    const before = gh.requests.length;
    const passesBefore = passEnds.length;
    const outputs = await step(
      report ? { ...inputs, sweep: 'true', wait: 'false' } : inputs,
      event,
      { ...env, GITHUB_RUN_ID: String(++runId), GITHUB_JOB: report ? 'report' : 'thread' },
      clock,
    );
    const end = clock.now();
    figures.runs++;
    figures.uses += Number(outputs.uses ?? 0);
    figures.heldMs += end - at;
    figures.billed += Math.max(1, Math.ceil((end - at) / MINUTE));
    groups.get(report ? 'report' : 'thread')!.busyUntil = end;
    // A pass's end is on GitHub once a run writes a completed status after it.
    const wrote = gh.requests.slice(before).some((r) => {
      const status = r.json as { state?: string; description?: string } | undefined;
      return (
        r.route === 'createStatus' &&
        status?.state === 'success' &&
        /^Completed/.test(status.description ?? '')
      );
    });
    if (wrote) {
      for (const ended of passEnds.slice(reportedUpTo.count)) {
        if (ended > end) break;
        figures.lags.push(end - ended);
        reportedUpTo.count++;
      }
    }
    if (!wait)
      for (const ended of passEnds.slice(passesBefore))
        arrivals.push({ kind: 'report', at: ended + EVENT_DELAY_MS });
  };

  for (const group of ['thread', 'report']) groups.set(group, { busyUntil: 0 });
  for (;;) {
    arrivals.sort((a, b) => a.at - b.at);
    const next = arrivals[0];
    const due = [...groups.entries()]
      .filter(([, g]) => g.pending)
      .map(([name, g]) => ({ name, at: Math.max(g.busyUntil, g.pending?.at ?? 0) }))
      .sort((a, b) => a.at - b.at)[0];
    if (!next && !due) break;
    if (due && (!next || due.at <= next.at)) {
      const g = groups.get(due.name)!;
      const pending = g.pending!;
      delete g.pending;
      await pending.start();
      continue;
    }
    arrivals.shift();
    const h = next!;
    const group = groups.get(h.kind === 'report' ? 'report' : 'thread')!;
    // The event's payload is what GitHub had when it happened.
    const event = happen(h);
    if (group.busyUntil <= h.at && !group.pending) {
      await play(h, h.at, event);
    } else {
      if (group.pending) figures.cancelled++;
      group.pending = { at: h.at, start: () => play(h, Math.max(group.busyUntil, h.at), event) };
    }
  }
  figures.passes = passEnds.length;
  figures.reported = figures.lags.length;
  await service.close();
  await gh.close();
  return figures;
}

const lives: Record<string, string>[] = [];
for (const life of LIVES) {
  for (const wait of [true, false]) {
    const f = await live(life, wait);
    const lags = [...f.lags].sort((a, b) => a - b);
    const median = lags[Math.floor(lags.length / 2)] ?? NaN;
    const minutes = (value: number) => (value / MINUTE).toFixed(1);
    lives.push({
      life: life.short,
      wait: wait ? '`true`' : '`false` + sweeps',
      uses: String(f.uses),
      held: minutes(f.heldMs),
      billed: String(f.billed),
      reported: `${f.reported} of ${f.passes}`,
      lag: `${minutes(median)} (worst ${minutes(lags.at(-1) ?? NaN)})`,
      runs: `${f.runs} (${f.cancelled} cancelled while pending)`,
    });
  }
}
rmSync(summaryDir, { recursive: true, force: true });
const setup =
  '8-minute agent passes, 20 s of set-up a job, events 15 s late, each job billed by the started minute';
writeFileSync(join(ROOT, 'docs', 'bench-life.json'), `${JSON.stringify({ setup, lives }, null, 2)}\n`);
console.log(`Pull request lives (${setup}):`);
for (const row of lives) console.log(Object.values(row).join(' | '));
