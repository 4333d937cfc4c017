// `npm run bench:life`, the lives users pay for: a pull request's life played through run() in this
// process against both emulators, on a modelled clock, with the workflows docs/examples.md gives:
// waiting for each agent pass ("Docs that follow the pull request", `wait: true`) and not ("Without
// holding a runner while the agent works", `wait: false`), each with the docs in the code repository
// (a monorepo) and in another one. Every run GitHub would start is played and billed: the thread's
// own runs, the lane runs report runs dispatch, the runs on the docs PR's own events (a monorepo),
// the report runs the docs repository's dispatch starts (that dispatch job billed in the docs
// repository), and the schedule's runs, a cost per day whatever happens. Written to
// docs/bench-life.json, which `npm run docs` (not this script) turns into the price tables of
// README.md and docs/examples.md.
//
// The model, stated once:
// - An agent pass takes 8 minutes (the emulator's jobs work that long on the model's clock) and ends
//   with a push to the docs PR, which opens it the first time: that PR's `pull_request` event.
// - A job's set-up (runner, token, checkout) is 20 s, billed; an event reaches its run 15 s after it
//   happens (a scheduled run 15 s after its cron time); each job is billed by the started minute.
// - GitHub runs one run at a time in a concurrency group (the recipe's `concurrency.group`, evaluated
//   on each event); with `queue: max` it keeps every pending run, in order, else one, cancelling the
//   older. A run is played whole when it starts: a waiting run's polls move the clock, and the runs
//   of other groups that started meanwhile are played after it, at their own time.
// - Each run is the recipe's one step, on whatever event started it, with the token the recipe's
//   `permissions` give. A branch's life is the recipe with `push: branches: [main]` beside it. In a
//   monorepo the docs PR's own events start runs whether or not the step waits: waiting, it skips
//   them, and they are billed all the same.
// - The docs repository's job that dispatches the code repository's workflow is not this action:
//   its steps (an app token, `gh workflow run`) take 5 s after its set-up, and its dispatch is an
//   event like any other. It is billed to the docs repository.
// - The schedule runs during each life too (it may write an end first), billed to the day, not to
//   the life. Its cost a day is its runs a day (from the recipe's cron) times the billed minutes of
//   a scheduled run that finds nothing, as played once each life is over. Not waiting pays from the
//   fewest pull requests a day whose saved minutes (waiting's minutes less not waiting's, in both
//   repositories) cover it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startGitHubEmulator, type GitHubEmulator, type StoredThread } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { VirtualClock } from '../__fixtures__/clock.js';
import { systemClock } from '../src/core/clock.js';
import { LANE_INPUT } from '../src/core/dispatch-inputs.js';
import { startGitHub } from '../src/github/index.js';
import { readNote } from '../src/github/note.js';
import { run } from '../src/main.js';

const ROOT = process.cwd();
const MINUTE = 60_000;
const PASS_MS = 8 * MINUTE;
const JOB_SETUP_MS = 20_000;
const EVENT_DELAY_MS = 15_000;
const DISPATCH_STEPS_MS = 5_000;
const START = Date.UTC(2026, 0, 5, 9);

const KEY = 'mint_bench_life_key_000000000000';
const WORKFLOW_TOKEN = 'ghs_BenchWorkflowToken0000000000000001';
const DOCS_TOKEN = 'ghs_BenchDocsToken000000000000000000002';
const APP = 'acme/app';
const DOCS = 'acme/docs';
const DOCS_BOT = 'docs-service[bot]';
const WORKFLOW_FILE = 'docs.yml';
const sha = (n: number) => n.toString(16).padStart(40, 'a');

interface Workflow {
  name: string;
  permissions?: Record<string, string>;
  on: Record<string, { types?: string[]; inputs?: Record<string, unknown> } | { cron: string }[] | null>;
  jobs: Record<string, { concurrency?: { group?: string; queue?: string } }>;
}

/** The workflow `name` of the first YAML block that has it after `heading` in docs/examples.md. */
function recipe(heading: string, name: string): Workflow {
  const examples = readFileSync(join(ROOT, 'docs', 'examples.md'), 'utf8');
  const from = examples.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`docs/examples.md has no heading "${heading}"`);
  for (const block of examples.slice(from).matchAll(/```yaml\n([\s\S]*?)```/g)) {
    const workflow = parse(block[1] ?? '') as Workflow | undefined;
    if (workflow?.name === name) return workflow;
  }
  throw new Error(`docs/examples.md has no workflow "${name}" after "${heading}"`);
}

const WAITING = recipe('## Docs that follow the pull request', 'Docs that follow the pull request');
const NOT_WAITING = recipe(
  '### Without holding a runner while the agent works',
  'Docs that follow the pull request, without waiting',
);
const DOCS_DISPATCH = recipe(
  '### Without holding a runner while the agent works',
  'Tell the code repository',
);

interface GitHubEvent {
  name: string;
  payload: { action?: string; inputs?: Record<string, string>; [field: string]: unknown };
}

/** Whether `workflow` runs on `event` (its `on:` and the activity types it lists). */
function triggers(workflow: Workflow, event: GitHubEvent): boolean {
  if (!(event.name in workflow.on)) return false;
  const on = workflow.on[event.name];
  const types = on && !Array.isArray(on) ? on.types : undefined;
  return !types || types.includes(event.payload.action ?? '');
}

/** The ref GitHub gives a run of `event`: a pull request's merge ref, else the default branch. */
function refOf(event: GitHubEvent): string {
  const number = (event.payload.pull_request as { number?: number } | undefined)?.number;
  return event.name === 'pull_request' && number ? `refs/pull/${number}/merge` : 'refs/heads/main';
}

/** The recipe's concurrency group on `event`: its `${{ a || b || … }}` evaluated as GitHub does. */
function groupOf(workflow: Workflow, event: GitHubEvent): string {
  const group = Object.values(workflow.jobs)[0]?.concurrency?.group;
  if (!group)
    throw new Error(`${workflow.name} has no concurrency group: the bench models one lane a thread`);
  const context = {
    github: { event: event.payload, ref: refOf(event), event_name: event.name },
    inputs: event.payload.inputs ?? {},
  };
  return group.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => {
    for (const term of expression.split('||')) {
      let value: unknown = context;
      for (const key of term.trim().split('.'))
        value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      // GitHub's `||` takes the first truthy value.
      if ((typeof value === 'string' || typeof value === 'number') && value) return String(value);
    }
    return '';
  });
}

/** Each of a cron field's values in [0, size): `*`, `*\/n`, `a-b`, `a-b/n` and lists of them. */
function cronField(field: string, size: number): number[] {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const [range = '*', step = '1'] = part.split('/');
    const [from, to] =
      range === '*' ? [0, size - 1] : range.includes('-') ? range.split('-').map(Number) : [Number(range)];
    const last = part.includes('/') && !range.includes('-') && range !== '*' ? size - 1 : (to ?? from);
    for (let v = from ?? 0; v <= (last ?? 0); v += Number(step)) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

/** The recipe's schedule: when it runs, and how many runs a day. Days it skips are not modelled. */
function scheduleOf(workflow: Workflow): { cron: string; perDay: number; next: (after: number) => number } {
  const schedule = workflow.on.schedule;
  const cron = Array.isArray(schedule) ? schedule[0]?.cron : undefined;
  if (!cron) return { cron: '', perDay: 0, next: () => Infinity };
  const [minute = '', hour = '', ...days] = cron.split(/\s+/);
  if (days.some((d) => d !== '*'))
    throw new Error(`the bench prices a schedule that runs every day; the recipe's is "${cron}"`);
  const minutes = cronField(minute, 60);
  const hours = cronField(hour, 24);
  return {
    cron,
    perDay: minutes.length * hours.length,
    next: (after) => {
      for (let t = Math.floor(after / MINUTE + 1) * MINUTE; ; t += MINUTE) {
        const at = new Date(t);
        if (minutes.includes(at.getUTCMinutes()) && hours.includes(at.getUTCHours())) return t;
      }
    },
  };
}
const SCHEDULE = scheduleOf(NOT_WAITING);

type Happening =
  { kind: 'open' | 'push' | 'merge'; at: number } | { kind: 'request'; at: number; text: string };

interface Life {
  /** Pushes straight to `main` (a branch's thread, its job kept in commit statuses), not a pull request. */
  branch?: true;
  /** As the README's price table names it. */
  short: string;
  followUp: 'at-merge' | 'every-push';
  happenings: Happening[];
}

const min = (m: number) => m * MINUTE;
const LIVES: Life[] = [
  {
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
    short: '5 `/docs` during the first pass',
    followUp: 'at-merge',
    happenings: [
      { kind: 'open', at: 0 },
      ...[1, 2, 3, 4, 5].map((m) => ({ kind: 'request' as const, at: min(m), text: `/docs request ${m}` })),
      { kind: 'merge', at: min(60) },
    ],
  },
  {
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
    short: 'a busy `main`: 6 pushes 3 min apart',
    followUp: 'every-push',
    happenings: [3, 6, 9, 12, 15, 18].map((m) => ({ kind: 'push' as const, at: min(m) })),
  },
];

/** Who started a run: the thread's events, a lane dispatch, the docs PR's event, the docs repository's dispatch, the schedule. */
type Kind = 'thread' | 'lane' | 'docsPr' | 'dispatched' | 'schedule';
type Layout = 'monorepo' | 'docs repository';

interface Figures {
  uses: number;
  /** The runs of this life in the code repository (the schedule's are the day's, apart). */
  heldMs: number;
  billed: number;
  runs: Record<Kind, number>;
  /** The docs repository's dispatch jobs, billed to it. */
  docsRepository: { runs: number; billed: number };
  /** Each scheduled run's billed minutes; the last one played after the life was over. */
  scheduled: number[];
  cancelled: number;
  passes: number;
  lags: number[];
  /** What went wrong that should not: a failed run, a warning, an end left unwritten, a request not sent. */
  problems: string[];
}

// `BENCH_LIFE_TRACE=1` prints every run played and the statuses it wrote: why a figure is what it is.
const TRACE = Boolean(process.env.BENCH_LIFE_TRACE);
// A life that has not settled in a modelled day keeps starting runs: a problem, not a figure.
const DAY = 24 * 60 * MINUTE;

const actionYml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};
const summaryDir = mkdtempSync(join(tmpdir(), 'bench-life-'));
const SUMMARY = join(summaryDir, 'summary');

/** One workflow run's step, as the runner starts it, in this process: its outputs, warnings and failure. */
async function step(
  inputs: Record<string, string>,
  event: GitHubEvent,
  env: Record<string, string>,
  clock: VirtualClock,
): Promise<{ outputs: Record<string, string>; warnings: string[]; failed: boolean }> {
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
    GITHUB_REF: refOf(event),
    GITHUB_ACTOR: 'octocat',
    GITHUB_WORKFLOW: 'docs',
    GITHUB_WORKFLOW_REF: `${APP}/.github/workflows/${WORKFLOW_FILE}@refs/heads/main`,
    GITHUB_JOB: 'docs',
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
  let said = '';
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, runEnv);
  process.stdout.write = (chunk: string | Uint8Array) => {
    said += String(chunk);
    return true;
  };
  let failed = false;
  try {
    await run({
      clock,
      github: (request, context, log) => Promise.resolve(startGitHub(request, context, log, systemClock)),
    });
  } finally {
    process.stdout.write = write;
    failed = process.exitCode !== undefined && process.exitCode !== 0;
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved);
    process.exitCode = undefined;
  }
  const outputs: Record<string, string> = {};
  const text = readFileSync(files.GITHUB_OUTPUT, 'utf8');
  for (const found of text.matchAll(/^([^<\n]+)<<(.+)\n([\s\S]*?)\n\2$/gm))
    outputs[found[1] ?? ''] = found[3] ?? '';
  rmSync(dir, { recursive: true, force: true });
  const warnings = [...said.matchAll(/^::(?:warning|error)[^:]*::(.*)$/gm)].map((m) => m[1] ?? '');
  return { outputs, warnings, failed };
}

/**
 * Math.random drawing from a fixed seed (mulberry32). The poll schedule's jitter draws from
 * Math.random, which run() takes from nowhere else: seeded afresh for each life, the figures are
 * the same on every run of the bench, so the tables change only when the product or the model does.
 */
function seedRandom(seed: number) {
  let state = seed >>> 0;
  Math.random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One life, with every run of it played in turn on the model's clock. */
async function live(life: Life, wait: boolean, layout: Layout): Promise<Figures> {
  seedRandom(42);
  const recipe = wait ? WAITING : NOT_WAITING;
  // A branch's pushes are in the group the recipe's expression gives a push.
  const workflow: Workflow = life.branch ? { ...recipe, on: { ...recipe.on, push: {} } } : recipe;
  const queueMax = Object.values(workflow.jobs)[0]?.concurrency?.queue === 'max';
  const monorepo = layout === 'monorepo';
  const gh: GitHubEmulator = await startGitHubEmulator();
  // The workflow's token may write the repository's contents (git refs) only where the recipe asks:
  // its permissions block says `write` where `on:` has `push`, as a branch's life adds.
  const contents = workflow.permissions?.contents === 'write' || (life.branch && !wait) ? [APP] : [];
  gh.grant(WORKFLOW_TOKEN, {
    login: 'github-actions[bot]',
    type: 'Bot',
    read: [APP],
    write: [APP],
    contents,
  });
  gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
  gh.collaborator(APP, 'octocat', 'write');
  // The recipe's own dispatch, with the inputs it declares: a hand-off naming an input it lacks is
  // refused, as GitHub refuses it.
  const dispatch = workflow.on.workflow_dispatch;
  const declared = dispatch && !Array.isArray(dispatch) ? Object.keys(dispatch.inputs ?? {}) : undefined;
  if (declared) gh.workflow(APP, WORKFLOW_FILE, { inputs: declared });
  if (!wait && !declared?.includes(LANE_INPUT))
    throw new Error(
      `${workflow.name} declares no workflow_dispatch input ${LANE_INPUT}: report runs could not hand off`,
    );
  const heads = life.happenings.filter((h) => h.kind === 'open' || h.kind === 'push').length;
  // A branch's commits lead to no pull request: its thread is the branch's own.
  const pr = gh.thread(APP, { headSha: sha(life.branch ? 900 : 1) });
  const changed = (n: number) => [
    { filename: `src/f${n}.ts`, status: 'modified' as const, additions: 1, deletions: 0, patch: '@@ +1 @@' },
  ];
  for (let to = 1; to <= heads; to++) {
    gh.commit(APP, { sha: sha(to), message: `Change ${to}`, files: changed(to) });
    for (let from = 1; from < to; from++)
      gh.comparison(APP, `${sha(from)}...${sha(to)}`, { commits: [], files: changed(to) });
  }
  const docsRepo = monorepo ? APP : DOCS;
  const docsPr: StoredThread = gh.thread(docsRepo, { opener: DOCS_BOT, headSha: sha(500) });
  const clock = new VirtualClock(START);
  const passEnds: number[] = [];
  let sent = 0;
  const service: Emulator = await startEmulator({
    apiKey: KEY,
    pass: { ms: PASS_MS, now: () => clock.now() },
    final: { status: 'completed', prLink: `${gh.serverUrl}/${docsRepo}/pull/${docsPr.number}` },
    onReply: (request, status) => {
      const send = request.route === 'create' || request.route === 'message';
      if (send && status !== 'dropped' && status < 300) {
        sent++;
        passEnds.push(clock.now() + PASS_MS);
      }
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
    ...(monorepo ? {} : { docsToken: DOCS_TOKEN }),
    wait: String(wait),
  };
  const env = { GITHUB_API_URL: gh.apiUrl, GITHUB_SERVER_URL: gh.serverUrl, GITHUB_REPOSITORY: APP };

  const figures: Figures = {
    uses: 0,
    heldMs: 0,
    billed: 0,
    runs: { thread: 0, lane: 0, docsPr: 0, dispatched: 0, schedule: 0 },
    docsRepository: { runs: 0, billed: 0 },
    scheduled: [],
    cancelled: 0,
    passes: 0,
    lags: [],
    problems: [],
  };
  let reportedUpTo = 0;
  let head = life.branch ? 0 : 1;
  let runId = 1000;
  let dispatched = 0;
  const base = {
    repository: { name: 'app', owner: { login: 'acme' }, full_name: APP, default_branch: 'main' },
    sender: { login: 'octocat', type: 'User' },
  };
  const atClock = () => `${((clock.now() - START) / MINUTE).toFixed(1)} min`;

  // What reaches GitHub's queue, and when; `make` writes the event's payload as GitHub has it then.
  interface Arrival {
    at: number;
    kind: Kind;
    make: () => GitHubEvent;
  }
  const arrivals: Arrival[] = life.happenings.map((h) => ({
    at: START + h.at + EVENT_DELAY_MS,
    kind: 'thread',
    make: () => happen(h),
  }));
  const groups = new Map<
    string,
    { busyUntil: number; pending: { at: number; kind: Kind; event: GitHubEvent }[] }
  >();

  const happen = (h: Happening): GitHubEvent => {
    const pull = (action: string, extra: Record<string, unknown> = {}) => ({
      name: 'pull_request',
      payload: {
        ...base,
        action,
        number: pr.number,
        pull_request: {
          number: pr.number,
          user: { login: 'octocat', type: 'User' },
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
    }
  };

  /** The agent's push to its docs PR at the end of pass `n` (0: the one that opens it). */
  const docsPrEvent = (n: number): GitHubEvent => {
    docsPr.headSha = sha(500 + n);
    return {
      name: 'pull_request',
      payload: {
        ...base,
        ...(monorepo ? {} : { repository: { name: 'docs', owner: { login: 'acme' }, full_name: DOCS } }),
        sender: { login: DOCS_BOT, type: 'Bot' },
        action: n === 0 ? 'opened' : 'synchronize',
        number: docsPr.number,
        pull_request: {
          number: docsPr.number,
          user: { login: DOCS_BOT, type: 'Bot' },
          head: { repo: { full_name: docsRepo }, sha: docsPr.headSha },
          base: { repo: { full_name: docsRepo } },
        },
      },
    };
  };

  /** What a pass's end starts: a run here on the docs PR's event, or the docs repository's dispatch job and the run it starts here. */
  const passEnded = (n: number, ended: number) => {
    const at = ended + EVENT_DELAY_MS;
    if (monorepo) {
      arrivals.push({ at, kind: 'docsPr', make: () => docsPrEvent(n) });
      return;
    }
    // The docs repository's workflow is part of the recipe that does not wait, only.
    const action = n === 0 ? 'opened' : 'synchronize';
    if (wait || !triggers(DOCS_DISPATCH, { name: 'pull_request', payload: { action } })) return;
    figures.docsRepository.runs++;
    figures.docsRepository.billed += Math.ceil((JOB_SETUP_MS + DISPATCH_STEPS_MS) / MINUTE);
    arrivals.push({
      at: at + JOB_SETUP_MS + DISPATCH_STEPS_MS + EVENT_DELAY_MS,
      kind: 'dispatched',
      make: () => ({ name: 'workflow_dispatch', payload: { ...base, inputs: {} } }),
    });
  };

  const play = async (kind: Kind, event: GitHubEvent, at: number, group: string) => {
    clock.time = at + JOB_SETUP_MS;
    const before = gh.requests.length;
    const passesBefore = passEnds.length;
    const ran = await step(inputs, event, { ...env, GITHUB_RUN_ID: String(++runId) }, clock);
    const end = clock.now();
    const billed = Math.max(1, Math.ceil((end - at) / MINUTE));
    figures.runs[kind]++;
    if (kind === 'schedule') figures.scheduled.push(billed);
    else {
      figures.heldMs += end - at;
      figures.billed += billed;
    }
    figures.uses += Number(ran.outputs.uses ?? 0);
    groups.get(group)!.busyUntil = end;
    if (TRACE) {
      const span = `${((at - START) / MINUTE).toFixed(2)}–${((end - START) / MINUTE).toFixed(2)} min`;
      const what = `${kind} ${event.name} ${event.payload.action ?? ''}`;
      console.log(
        `[${life.short} · ${layout} · wait: ${wait}] ${what} ${span}: ${JSON.stringify(ran.outputs)}`,
      );
      for (const r of gh.requests.slice(before).filter((r) => r.route === 'createStatus'))
        console.log(`  status on ${r.path.split('/').at(-1) ?? ''}: ${JSON.stringify(r.json)}`);
    }
    if (ran.failed) figures.problems.push(`a ${kind} run at ${atClock()} failed`);
    for (const warning of ran.warnings) figures.problems.push(`a ${kind} run at ${atClock()}: ${warning}`);
    // A pass's end is on GitHub once a run writes a completed status after it.
    const wrote = gh.requests.slice(before).some((r) => {
      const status = r.json as { state?: string; description?: string } | undefined;
      return (
        r.route === 'createStatus' &&
        status?.state === 'success' &&
        /^Completed/.test(status.description ?? '')
      );
    });
    if (wrote)
      for (const ended of passEnds.slice(reportedUpTo)) {
        if (ended > end) break;
        figures.lags.push(end - ended);
        reportedUpTo++;
      }
    passEnds.slice(passesBefore).forEach((ended, i) => passEnded(passesBefore + i, ended));
    for (const lane of gh.dispatches(APP).slice(dispatched)) {
      dispatched++;
      arrivals.push({
        at: end + EVENT_DELAY_MS,
        kind: 'lane',
        make: () => ({ name: 'workflow_dispatch', payload: { ...base, inputs: lane.inputs ?? {} } }),
      });
    }
  };

  /** An arrival GitHub starts now, or keeps pending in its group (cancelling the older one without `queue: max`). */
  const arrive = async (arrival: Arrival) => {
    // The event's payload is what GitHub had when it happened.
    const event = arrival.make();
    if (!triggers(workflow, event)) return;
    const key = groupOf(workflow, event);
    const group = groups.get(key) ?? { busyUntil: 0, pending: [] };
    groups.set(key, group);
    if (group.busyUntil <= arrival.at && group.pending.length === 0)
      return play(arrival.kind, event, arrival.at, key);
    if (!queueMax) {
      figures.cancelled += group.pending.length;
      group.pending = [];
    }
    group.pending.push({ at: arrival.at, kind: arrival.kind, event });
  };

  const scheduled = (at: number): Arrival => ({
    at: at + EVENT_DELAY_MS,
    kind: 'schedule',
    make: () => ({ name: 'schedule', payload: { ...base, schedule: SCHEDULE.cron } }),
  });
  let nextCron = wait ? Infinity : SCHEDULE.next(START);
  // The schedule runs all along: it is played while the life goes on, and once after it, when it
  // should find nothing (what it costs every other hour of the day).
  let over: { reported: number; dispatched: number } | undefined;
  for (;;) {
    arrivals.sort((a, b) => a.at - b.at);
    const next = arrivals[0];
    const due = [...groups.entries()]
      .filter(([, g]) => g.pending.length > 0)
      .map(([key, g]) => ({ key, g, at: Math.max(g.busyUntil, g.pending[0]?.at ?? 0) }))
      .sort((a, b) => a.at - b.at)[0];
    if (!next && !due) {
      if (over || !Number.isFinite(nextCron)) break;
      over = { reported: reportedUpTo, dispatched };
      arrivals.push(scheduled(nextCron));
      continue;
    }
    if (!over && nextCron + EVENT_DELAY_MS < Math.min(next?.at ?? Infinity, due?.at ?? Infinity)) {
      arrivals.push(scheduled(nextCron));
      nextCron = SCHEDULE.next(nextCron);
      continue;
    }
    if (Math.min(next?.at ?? Infinity, due?.at ?? Infinity) > START + DAY) {
      figures.problems.push('runs still started a day after the life began');
      break;
    }
    if (due && (!next || due.at <= next.at)) {
      const pending = due.g.pending.shift()!;
      await play(pending.kind, pending.event, due.at, due.key);
      continue;
    }
    arrivals.shift();
    await arrive(next!);
  }
  if (over && (reportedUpTo > over.reported || dispatched > over.dispatched))
    figures.problems.push('the scheduled run after the life still found an end to write or something owed');
  figures.passes = passEnds.length;
  settled(gh, pr, life, heads, figures, sent);
  await service.close();
  await gh.close();
  return figures;
}

/** What must hold once a life is over, whoever ran: each end written, each request sent once, nothing left waiting. */
function settled(
  gh: GitHubEmulator,
  pr: StoredThread,
  life: Life,
  heads: number,
  figures: Figures,
  sent: number,
) {
  const problems = figures.problems;
  if (figures.lags.length !== figures.passes)
    problems.push(`${figures.passes - figures.lags.length} of ${figures.passes} passes' ends never written`);
  if (figures.uses !== sent)
    problems.push(`the runs counted ${figures.uses} uses; the service accepted ${sent} sends`);
  for (let n = 1; n <= heads; n++) {
    const newest = new Map<string, { state: string; description: string | null }>();
    for (const status of gh.statuses(APP, sha(n)))
      if (!newest.has(status.context)) newest.set(status.context, status);
    for (const [context, status] of newest)
      if (status.state === 'pending')
        problems.push(`commit ${n}'s status ${context} left pending: ${status.description ?? ''}`);
  }
  if (life.branch) return;
  if (pr.labels.includes('docs-agent-working')) problems.push('the label docs-agent-working left on');
  const kept = pr.comments.find((c) => readNote(c.body));
  if (kept && readNote(kept.body)?.waiting) problems.push('the thread still waits');
  for (const request of pr.comments.filter((c) => c.body.startsWith('/docs'))) {
    const eyes = request.reactions.filter((r) => r === 'eyes').length;
    if (eyes !== 1) problems.push(`"${request.body}" has ${eyes} 👀 (1 when sent)`);
  }
}

const MODEL = '8-minute agent passes, 20 s set-up a job, events 15 s late, billing by the started minute';
const LAYOUTS: Layout[] = ['monorepo', 'docs repository'];
const minutes = (ms: number) => Math.round((ms / MINUTE) * 10) / 10;
// What a problem names that changes from one run to the next (job ids, hashes, the emulators'
// ports) is left out, so that docs/bench-life.json changes only when what happened does.
const steady = (text: string) =>
  text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, '')
    .replace(/job_[0-9a-f]+/g, 'job_…')
    .replace(/\b[0-9a-f]{12,}\b/g, '…');

const played = new Map<string, Figures>();
const key = (life: Life, layout: Layout, wait: boolean) => `${life.short}|${layout}|${wait}`;
for (const life of LIVES)
  for (const layout of LAYOUTS)
    for (const wait of [true, false]) played.set(key(life, layout, wait), await live(life, wait, layout));
rmSync(summaryDir, { recursive: true, force: true });

const lives = LIVES.flatMap((life) =>
  LAYOUTS.flatMap((layout) =>
    [true, false].map((wait) => {
      const f = played.get(key(life, layout, wait))!;
      const lags = [...f.lags].sort((a, b) => a - b);
      return {
        life: life.short,
        docs: layout,
        wait,
        uses: f.uses,
        held: minutes(f.heldMs),
        billed: f.billed,
        billedInDocsRepository: f.docsRepository.billed,
        runs: { ...f.runs, inDocsRepository: f.docsRepository.runs, cancelledWhilePending: f.cancelled },
        reported: `${f.lags.length} of ${f.passes}`,
        lag: minutes(lags[Math.floor(lags.length / 2)] ?? NaN),
        worstLag: minutes(lags.at(-1) ?? NaN),
        problems: f.problems.map(steady),
      };
    }),
  ),
);

// A scheduled run that finds nothing costs the same every hour of every day: the most one cost.
const idle = [...played.values()].flatMap((f) => f.scheduled.slice(-1));
const billedPerRun = Math.max(0, ...idle);
const schedule = {
  cron: SCHEDULE.cron,
  runsPerDay: SCHEDULE.perDay,
  billedPerRun,
  billedPerDay: SCHEDULE.perDay * billedPerRun,
};
// Not waiting pays once the minutes it saves a pull request, times the pull requests a day, cover
// the schedule's minutes a day: from `billedPerDay / saved` of them, rounded up to a tenth (on
// whole numbers: 0.7 × 10 in floating point is 7.000000000000001, which would round up to 0.8).
const breakEven = LIVES.flatMap((life) =>
  LAYOUTS.map((layout) => {
    const waiting = played.get(key(life, layout, true))!;
    const not = played.get(key(life, layout, false))!;
    const saved = waiting.billed - (not.billed + not.docsRepository.billed);
    return {
      life: life.short,
      docs: layout,
      savedPerPullRequest: saved,
      pullRequestsPerDay: saved > 0 ? Math.round((schedule.billedPerDay / saved) * 100) / 100 : null,
      paysFrom: saved > 0 ? Math.ceil((schedule.billedPerDay * 10) / saved) / 10 : null,
    };
  }),
);

writeFileSync(
  join(ROOT, 'docs', 'bench-life.json'),
  `${JSON.stringify({ setup: MODEL, recipe: LIVES[0]?.short, schedule, lives, breakEven }, null, 2)}\n`,
);
console.log(`Pull request lives (${MODEL}): uses, runner minutes, billed (+ in the docs repository)`);
for (const l of lives)
  console.log(
    `${l.life} | ${l.docs} | wait: ${l.wait} | ${l.uses} | ${l.held} | ${l.billed} + ${l.billedInDocsRepository} | lag ${l.lag} (worst ${l.worstLag}) | ${JSON.stringify(l.runs)}`,
  );
console.log(
  `The schedule (${schedule.cron}): ${schedule.runsPerDay} runs, ${schedule.billedPerDay} billed minutes a day.`,
);
for (const b of breakEven)
  console.log(
    `${b.life} | ${b.docs}: saves ${b.savedPerPullRequest} billed minutes a pull request; not waiting pays from ${b.paysFrom ?? 'never'} a day`,
  );
for (const l of lives)
  for (const problem of l.problems)
    console.error(`Problem: ${l.life} (${l.docs}, wait: ${l.wait}): ${problem}`);
