// GitHub's own local runner, @github/local-action, runs src/main.ts from a .env that holds only
// the four required inputs (`npm run local-action`): it passes githubToken's default
// `${{ github.token }}` unevaluated, which a run that asks for no GitHub feature never reads.
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

it('runs the action from the four required inputs and sets status and prLink', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-action-'));
  const env = join(dir, '.env');
  writeFileSync(
    env,
    [
      'INPUT_PROMPT="Fix typos on the quickstart page"',
      'INPUT_PROJECTID=proj_local',
      `INPUT_APIKEY=${KEY}`,
      `INPUT_BASEURL=${service.url}`,
      '',
    ].join('\n'),
  );
  // Asynchronously: the emulator answers from this process.
  const stdout = await new Promise<string>((resolve) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'local-action'), ['.', 'src/main.ts', env], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: dir, npm_config_offline: 'true' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // A hang fails the test with what it printed, and leaves no process behind.
    const timer = setTimeout(() => child.kill('SIGKILL'), 290_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
  const out = stdout;
  expect(out).toContain('::set-output name=status::completed');
  expect(out).toMatch(/::set-output name=prLink::https:\/\/github\.com\/acme\/docs\/pull\/\d+/);
  expect(out).not.toContain('::error::');
  expect(service.count('create')).toBe(1);
}, 300_000);
