// The README's input and output tables are generated from action.yml (npm run docs); they must
// not drift from it.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

const check = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'readme-tables.mjs'), '--check', ...args], {
    encoding: 'utf8',
  });

describe('README tables', () => {
  it('match action.yml', () => {
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('are caught when action.yml changes and the README does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8').replace(
      'How long to wait for the job to finish',
      'How long to wait',
    );
    writeFileSync(join(dir, 'action.yml'), action);
    const result = check('--action', join(dir, 'action.yml'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('run `npm run docs` and commit README.md');
  });
});
