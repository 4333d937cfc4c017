// What `npm run demo` runs after its build of dist/ (which `npm test` has made before jest starts,
// and which must not be rebuilt under the end-to-end tests running beside this one): the
// emulators' bundles, then the demo, which plays three runs of the action on one pull request
// and prints, for each, what GitHub would show: the log (masked, workflow commands rendered),
// then the outputs, the summary, the comment, the commit statuses and the reactions, with no
// secret and no `::add-mask::` anywhere.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

const KEY = 'mint_emulator_key_0000000000000000';
/** The GitHub emulator's workflow token, as its CLI hands it to the demo. */
const TOKEN =
  /const DEMO_TOKEN = '([^']+)'/.exec(readFileSync(join(ROOT, 'emulators', 'github-cli.ts'), 'utf8'))?.[1] ??
  '';

/** The headings each run's sections are printed under, in the order they must come. */
const SECTIONS = [
  '\n--- Outputs ---\n',
  '\n--- Step summary ---\n',
  '\n--- Comment on acme/app#1 ---\n',
  '\n--- Commit statuses on ',
  '\n--- Reactions to the /docs comment ---\n',
];

function demo(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'npm run --silent build:emulator && node scripts/demo.mjs'], {
      cwd: ROOT,
      env: { ...process.env, RUNNER_DEBUG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    // A hang fails the test rather than the suite's run; the bound is generous, for a loaded machine.
    const timer = setTimeout(() => child.kill('SIGTERM'), 290_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run demo', () => {
  it('prints each run as GitHub shows it: no secret, then outputs, summary, comment, statuses, reactions', async () => {
    const { code, output } = await demo();
    expect({ code, tail: output.slice(-2000) }).toEqual({ code: 0, tail: expect.any(String) });

    expect(TOKEN).toMatch(/^ghs_/);
    expect(output).not.toContain('::add-mask::');
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(TOKEN);
    // The comment's hidden markers and the summary's HTML are rendered, not printed.
    expect(output).not.toContain('<!--');
    expect(output).not.toContain('<table>');

    const runs = output.split('\n=== Run ').slice(1);
    expect(runs).toHaveLength(3);
    for (const run of runs) {
      const at = SECTIONS.map((heading) => run.indexOf(heading));
      expect(at.every((i) => i >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    }
    expect(runs.map((run) => /^mode += (\S+)$/m.exec(run)?.[1])).toEqual([
      'created',
      'followed-up',
      'skipped',
    ]);
  }, 300_000);
});
