import { afterAll, afterEach, expect } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGitHubEmulator, type GitHubEmulator, type GitHubEmulatorOptions } from '../emulators/github.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../emulators/server.js';
import type { RunDeps } from '../src/main.js';
import { systemClock } from '../src/core/clock.js';
import { startGitHub } from '../src/github/index.js';
import { VirtualClock } from './clock.js';
import { DOCS_TOKEN, gitHubEnv, pullRequestEvent, world } from './github-world.js';
import {
  killLeftoverRuns,
  runAction,
  runInProcess,
  RUNNER_TOKENS,
  whereSecretLeaks,
  WORKFLOW_TOKEN,
  type RunOptions,
  type RunResult,
} from './runner.js';

// A test that hit jest's limit leaves its run of the bundle going: none outlives its file.
afterAll(killLeftoverRuns);

/** The key every end-to-end run uses; the emulator accepts only it. */
export const KEY = 'mint_e2e_key_Zq8WvR2nLp5TxY7c';

/** An emulator of either kind: closed after its test, having recorded what broke its contract. */
interface Checked {
  close(): Promise<void>;
  violations: string[];
}

/**
 * Wraps `start` for a test file's tests: after each test, every emulator it started must have seen
 * only requests (and sent only replies) that keep its OpenAPI contract, and is closed.
 */
function closedAfterEach<O, E extends Checked>(
  start: (options: O) => Promise<E>,
): (options: O) => Promise<E> {
  const running: E[] = [];
  afterEach(async () => {
    const started = running.splice(0);
    await Promise.all(started.map((e) => e.close()));
    for (const e of started) expect(e.violations).toEqual([]);
  });
  return async (options) => {
    const started = await start(options);
    running.push(started);
    return started;
  };
}

/** Emulators of the service for a test file's tests, accepting only `KEY`, with `defaults`. */
export function emulators(defaults: EmulatorOptions = {}): (options?: EmulatorOptions) => Promise<Emulator> {
  const start = closedAfterEach((options: EmulatorOptions) =>
    startEmulator({ apiKey: KEY, ...defaults, ...options }),
  );
  return (options = {}) => start(options);
}

/** As `emulators`, for GitHub: each one's requests and replies must keep GitHub's OpenAPI description. */
export function gitHubEmulators(): (options?: GitHubEmulatorOptions) => Promise<GitHubEmulator> {
  const start = closedAfterEach(startGitHubEmulator);
  return (options = {}) => start(options);
}

/** A gateway's 503 on a poll that quotes the bearer token it was sent (`key`) in its error. */
export function gatewayEchoing(key: string) {
  return {
    status: 503,
    json: {
      error: `Request rejected by edge gateway: the bearer token presented in the Authorization header (token=${key}) is rate limited`,
    },
  };
}

/** A run for pull request `number` of `gh`'s world (its event and GitHub), against `service`. */
export function pullRequestRun(
  service: Emulator,
  gh: GitHubEmulator,
  number: number,
  overrides: Record<string, string> = {},
): RunOptions {
  return { inputs: inputsFor(service, overrides), env: gitHubEnv(gh), event: pullRequestEvent(number) };
}

export function inputsFor(
  emulator: Emulator,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    prompt: 'Document the new rate limits',
    projectId: 'proj_docs',
    apiKey: KEY,
    baseUrl: emulator.url,
    pollInterval: '1s',
    timeout: '40s',
    ...overrides,
  };
}

/**
 * A run whose waits for the service pass at once (a virtual clock), while GitHub's side keeps the
 * real clock: its budgets bound real requests, which a virtual clock would cut at once.
 */
export function serviceTimeOnly(): RunDeps {
  return {
    clock: new VirtualClock(),
    github: (request, context, log) => Promise.resolve(startGitHub(request, context, log, systemClock)),
  };
}

/**
 * A run on a thread as the README's thread workflow writes it (`thread`, `status`, `context: auto`,
 * `/docs`, a `docsToken`) against both emulators; `inputs` and `env` add to it.
 */
export function threadStep(service: Emulator, gh: GitHubEmulator) {
  return (
    event: RunOptions['event'],
    inputs: Record<string, string> = {},
    env: Record<string, string> = {},
  ): RunOptions => ({
    inputs: inputsFor(service, {
      thread: 'true',
      status: 'true',
      context: 'auto',
      trigger: '/docs',
      docsToken: DOCS_TOKEN,
      ...inputs,
    }),
    env: { ...gitHubEnv(gh), ...env },
    event,
  });
}

/**
 * A thread's world: a pull request of acme/app whose docs live in acme/docs (`world`), a service
 * whose jobs complete with the docs pull request, and the thread workflow's step against both.
 */
export async function docsThread(
  github: () => Promise<GitHubEmulator>,
  emulator: (options?: EmulatorOptions) => Promise<Emulator>,
) {
  const gh = await github();
  const { pr, docsPr, docsLink } = world(gh);
  const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
  return { gh, pr, docsPr, docsLink, service, step: threadStep(service, gh) };
}

/**
 * Runs the bundled action and checks what must hold on every run: no piece of the key, of either
 * token, of the runner's own tokens, nor of any other secret named in `secrets`, raw or encoded,
 * shows anywhere the runner keeps.
 */
export async function run(options: RunOptions & { secrets?: string[] }): Promise<RunResult> {
  return checked(await runAction(options), options);
}

/**
 * Runs `run()` from the sources in this process, with the runner's environment and the real
 * `@actions/core`, and checks what `run` checks: for everything only a process does not show.
 */
export async function runHere(
  options: RunOptions & { secrets?: string[] },
  deps: RunDeps = {},
): Promise<RunResult> {
  return checked(await runInProcess(options, deps), options);
}

function checked(result: RunResult, options: RunOptions & { secrets?: string[] }): RunResult {
  const tokens = [
    options.inputs.githubToken ?? options.githubToken ?? WORKFLOW_TOKEN,
    options.inputs.docsToken,
  ];
  // Both tokens masked on every run, whatever it asked for.
  const masked = result.commands.filter((c) => c.name === 'add-mask').map((c) => c.data);
  for (const token of tokens) if (token) expect(masked).toContain(token);
  for (const secret of [
    options.inputs.apiKey,
    ...tokens,
    ...Object.values(RUNNER_TOKENS),
    ...(options.secrets ?? []),
  ]) {
    if (secret) expect(whereSecretLeaks(result, secret)).toEqual([]);
  }
  return result;
}

/**
 * Runs the bundle and, once `ready()` holds, sends it `signal` as the runner does on a
 * cancellation. How soon it exits is not asked (the machine's speed would answer): a test holds
 * back what the run would otherwise wait for, so that its exit shows it did not wait.
 */
export async function runAndSignal(
  options: RunOptions & { secrets?: string[] },
  ready: () => boolean,
  signal: NodeJS.Signals,
): Promise<{ result: RunResult }> {
  let child: ChildProcess | undefined;
  let done = false;
  const pending = run({ ...options, onStart: (c) => (child = c) }).finally(() => (done = true));
  // A run that ends before it is ready gets no signal; its result still fails the test's checks.
  while (!ready() && !done) await sleep(20);
  child?.kill(signal);
  return { result: await pending };
}

/**
 * Runs the bundle and sends it `signal` from inside `arm`'s callback, which an emulator calls at
 * the point of the run where the signal must be pending (`afterAnswer`): no polling, so a loaded
 * machine sends it at the same point as an idle one.
 */
export async function runAndSignalAt(
  options: RunOptions & { secrets?: string[] },
  arm: (send: () => void) => void,
  signal: NodeJS.Signals,
): Promise<{ result: RunResult }> {
  let child: ChildProcess | undefined;
  arm(() => child?.kill(signal));
  return { result: await run({ ...options, onStart: (c) => (child = c) }) };
}

export function errors(result: RunResult): string[] {
  return result.commands.filter((c) => c.name === 'error').map((c) => c.data);
}

export function notices(result: RunResult): string[] {
  return result.commands.filter((c) => c.name === 'notice').map((c) => c.data);
}

export function warnings(result: RunResult): string[] {
  return result.commands.filter((c) => c.name === 'warning').map((c) => c.data);
}

/** The step failed with exactly one error line, which contains `text`. */
export function expectFailure(result: RunResult, text: string): void {
  expect(result.code).toBe(1);
  const lines = errors(result);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(text);
  // Every failure the action foresees has its own sentence; this one is for bugs.
  expect(lines[0]).not.toContain('failed unexpectedly');
  expect(lines[0]).not.toMatch(/%0A|\n/);
}
