// The README's input and output tables are generated from action.yml (npm run docs); they must
// not drift from it. The script runs in process (`check`), as `npm run docs -- --check` runs it.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';
import { docsScript } from '../__fixtures__/docs.js';

const { check } = await docsScript();

describe('README tables', () => {
  it('match action.yml', () => {
    expect(check({}, ['readme'])).toEqual([]);
  });

  it('are caught when action.yml changes and the README does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8').replace(
      'How long to wait for the job to finish',
      'How long to wait',
    );
    writeFileSync(join(dir, 'action.yml'), action);
    const problems = check({ action: join(dir, 'action.yml') }, ['readme']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('run `npm run docs` and commit README.md');
  });
});
