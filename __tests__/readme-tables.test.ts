// The README's input and output tables are generated from action.yml, and its price table and
// docs/examples.md's price sentence from docs/bench-life.json (npm run docs); they must not drift
// from them. The script runs in process (`check`), as `npm run docs -- --check` runs it. The
// benches only measure: `npm run docs` alone rewrites the docs.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';
import { docsScript } from '../__fixtures__/docs.js';

const script = await docsScript();
const { check } = script;
// The fixture's type names the files generated before docs/examples.md's price sentence was.
const checkFiles = script.check as (overrides?: Record<string, string>, only?: string[]) => string[];

interface Measured {
  schedule: { billedPerDay: number };
  lives: { life: string; docs: string; wait: boolean; billed: number; billedInDocsRepository: number }[];
  breakEven: { life: string; docs: string; savedPerPullRequest: number; paysFrom: number | null }[];
}
const measured = JSON.parse(readFileSync(join(ROOT, 'docs', 'bench-life.json'), 'utf8')) as Measured;

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

describe('prices', () => {
  it("match docs/bench-life.json: the README's table and docs/examples.md's sentence", () => {
    expect(checkFiles({}, ['readme', 'examples'])).toEqual([]);
  });

  it('are caught in both when the measured figures change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lives-'));
    const changed = {
      ...measured,
      schedule: { ...measured.schedule, billedPerDay: 1 + measured.schedule.billedPerDay },
    };
    writeFileSync(join(dir, 'bench-life.json'), JSON.stringify(changed));
    const problems = checkFiles({ lives: join(dir, 'bench-life.json') }, ['readme', 'examples']);
    expect(problems).toEqual([
      expect.stringContaining('commit README.md'),
      expect.stringContaining('commit docs/examples.md'),
    ]);
  });

  it('say from how many pull requests a day not waiting pays, as the measured minutes give it', () => {
    const billed = (life: string, docs: string, wait: boolean) => {
      const l = measured.lives.find((x) => x.life === life && x.docs === docs && x.wait === wait);
      return l ? l.billed + l.billedInDocsRepository : NaN;
    };
    expect(measured.breakEven.length).toBeGreaterThan(0);
    for (const b of measured.breakEven) {
      const saved = billed(b.life, b.docs, true) - billed(b.life, b.docs, false);
      expect(b.savedPerPullRequest).toBe(saved);
      expect(b.paysFrom).toBe(
        saved > 0 ? Math.ceil((measured.schedule.billedPerDay * 10) / saved) / 10 : null,
      );
    }
  });

  it("are rewritten by npm run docs: package.json's bench scripts and bench-life.ts do not run it", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.docs).toContain('scripts/readme-tables.mjs');
    const rewriting = Object.entries(scripts)
      .filter(([name, command]) => name.startsWith('bench') && command.includes('readme-tables'))
      .map(([name]) => name);
    expect(rewriting).toEqual([]);
    expect(readFileSync(join(ROOT, 'scripts', 'bench-life.ts'), 'utf8')).not.toContain('readme-tables');
  });
});
