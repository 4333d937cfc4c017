// The README's inner loop takes jest's own flags: `npm run test:unit -- -t <name>` runs only the
// tests so named (not the files whose paths hold `-t`), `-- --json` reports as jest does, and
// `-- <file>` runs that file. Played as a newcomer types it, through npm, in a process of its own.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

interface JestReport {
  numTotalTests: number;
  numPassedTests: number;
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

/** `npm run test:unit -- ...args --json --outputFile=…`, and jest's report. */
function innerLoop(args: string[]): Promise<{ code: number | null; report: JestReport; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'inner-loop-'));
  const file = join(dir, 'report.json');
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npm',
      ['run', '--silent', 'test:unit', '--', ...args, '--json', `--outputFile=${file}`],
      {
        cwd: ROOT,
        env: { ...process.env, CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, report: JSON.parse(readFileSync(file, 'utf8')) as JestReport, output });
      } catch (error) {
        reject(new Error(`no report (${String(error)}):\n${output.slice(-2000)}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

describe('npm run test:unit takes jest’s flags', () => {
  it('-t <name>: only the tests so named run, whatever files their paths name', async () => {
    const { code, report } = await innerLoop(['-t', 'isDocsPullPage', 'github.test']);
    expect(code).toBe(0);
    const ran = report.testResults.flatMap((r) => r.assertionResults.filter((a) => a.status === 'passed'));
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.every((a) => /^(takes|refuses) /.test(a.title))).toBe(true);
    expect(report.numPassedTests).toBe(ran.length);
  }, 120_000);

  it('<file>: that file alone, reported as jest reports with --json', async () => {
    const { code, report } = await innerLoop(['duration.test']);
    expect(code).toBe(0);
    expect(report.testResults.map((r) => r.name.split('/').pop())).toEqual(['duration.test.ts']);
    expect(report.numTotalTests).toBeGreaterThan(0);
  }, 120_000);
});
