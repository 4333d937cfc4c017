import { execFile } from 'node:child_process';

/**
 * Runs git safely (DESIGN.md §4): argument arrays only, never a shell; hooks, system config,
 * prompts, LFS smudging and submodule recursion off; optional credentials only in the environment
 * of that one command (as http.extraHeader), never in a URL, a file or an error message.
 */
export interface GitOptions {
  cwd?: string;
  signal?: AbortSignal;
  /** Sent as `Authorization` on HTTP(S) remotes for this command only. */
  authorization?: string;
  /** Bytes; output beyond this fails the command instead of filling memory. */
  maxBuffer?: number;
  env?: Record<string, string>;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    secrets: string[],
  ) {
    super(`git ${args[0] ?? ''} failed (exit ${exitCode}): ${redact(stderr.trim(), secrets).slice(0, 2000)}`);
    this.name = 'GitError';
  }
}

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'submodule.recurse=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'credential.helper=',
  '-c',
  'gc.auto=0',
];

export function git(args: string[], o: GitOptions = {}): Promise<string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_LFS_SKIP_SMUDGE: '1',
    GIT_ASKPASS: 'echo',
    ...o.env,
  };
  const secrets: string[] = [];
  if (o.authorization) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${o.authorization}`;
    secrets.push(o.authorization, ...o.authorization.split(' '));
  }
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...SAFE_CONFIG, ...args],
      { cwd: o.cwd, env, signal: o.signal, maxBuffer: o.maxBuffer ?? 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          if (o.signal?.aborted) return reject(o.signal.reason ?? err);
          const code =
            typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
          return reject(new GitError(args, code, stderr || err.message, secrets));
        }
        resolve(stdout);
      },
    );
  });
}

/** `git check-ref-format --branch`: refuses any name git would not take as a branch. */
export async function checkBranchName(name: string): Promise<void> {
  await git(['check-ref-format', '--branch', name]);
}
