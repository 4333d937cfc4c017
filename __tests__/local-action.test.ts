// GitHub's own local runner, @github/local-action, runs src/main.ts from a .env that holds only
// the four required inputs (`npm run local-action`): it passes githubToken's default
// `${{ github.token }}` unevaluated, which a run that asks for no GitHub feature never reads. Its
// stand-in for @actions/core records a failure without setting the exit code: the action sets it.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';
import { startEmulator, type Emulator } from '../emulators/server.js';

const KEY = 'mint_local_action_key_000000';
let service: Emulator;
beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY, activePolls: 1 });
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  await service.close();
});

/** `npm run local-action`'s command against a .env of `lines`: its exit code and what it printed. */
async function localAction(lines: string[]): Promise<{ code: number | null; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'local-action-'));
  const env = join(dir, '.env');
  writeFileSync(env, [...lines, ''].join('\n'));
  // Asynchronously: the emulator answers from this process.
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'local-action'), ['.', 'src/main.ts', env], {
      cwd: ROOT,
      // Where node_modules is a link (a git worktree sharing one install), modules are known by
      // the link's path, which is the one local-action stubs @actions/core at.
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        npm_config_offline: 'true',
        NODE_OPTIONS: '--preserve-symlinks',
      },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // A hang fails the test with what it printed, and leaves no process behind.
    const timer = setTimeout(() => child.kill('SIGKILL'), 290_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

it('runs the action from the four required inputs and sets status and prLink', async () => {
  const { code, out } = await localAction([
    'INPUT_PROMPT="Fix typos on the quickstart page"',
    'INPUT_PROJECTID=proj_local',
    `INPUT_APIKEY=${KEY}`,
    `INPUT_BASEURL=${service.url}`,
  ]);
  expect(out).toContain('::set-output name=status::completed');
  expect(out).toMatch(/::set-output name=prLink::https:\/\/github\.com\/acme\/docs\/pull\/\d+/);
  expect(out).not.toContain('::error::');
  expect(code).toBe(0);
  expect(service.count('create')).toBe(1);
}, 300_000);

it('exits non-zero when the action fails: an apiKey the service rejects', async () => {
  const { code, out } = await localAction([
    'INPUT_PROMPT="Fix typos on the quickstart page"',
    'INPUT_PROJECTID=proj_local',
    'INPUT_APIKEY=mint_not_the_key_0000000000',
    `INPUT_BASEURL=${service.url}`,
  ]);
  // The failure is the service's refusal, read through local-action's stand-in for @actions/core
  // (which fills the inputs' defaults from action.yml): the real one sets the exit code itself.
  expect(out).toContain('::error::The service rejected the API key (401)');
  expect(code).not.toBe(0);
}, 300_000);
