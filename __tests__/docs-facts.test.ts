// What the docs count or list of action.yml — how many inputs and outputs, which inputs take their
// default when a local run leaves them empty — is checked against action.yml and the code, as the
// README's tables are (readme-tables.test.ts): a fact that drifts fails here, not in a reader's hands.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OPTIONAL_DEFAULTS } from '../src/decide/inputs.js';
import { ROOT } from '../__fixtures__/runner.js';

const actionYml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { required?: boolean }>;
  outputs: Record<string, unknown>;
};
const docs = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty'];
/** A number as a word or digits, up to 49: `twenty-seven`, `27`. */
function numberOf(word: string): number | undefined {
  if (/^\d+$/.test(word)) return Number(word);
  const lower = word.toLowerCase();
  const small = WORDS.indexOf(lower);
  if (small >= 0) return small;
  const [tens = '', ones] = lower.split('-');
  const t = TENS.indexOf(tens);
  if (t < 2) return undefined;
  return ones === undefined
    ? t * 10
    : WORDS.indexOf(ones) > 0 && WORDS.indexOf(ones) < 10
      ? t * 10 + WORDS.indexOf(ones)
      : undefined;
}

const inputs = Object.keys(actionYml.inputs).length;
const outputs = Object.keys(actionYml.outputs).length;
// A local run's `.env` holds the required inputs and the prompt (required unless another input gives it).
const localRunInputs = Object.values(actionYml.inputs).filter((i) => i.required).length + 1;

describe('counted facts in the docs', () => {
  const counts = docs.flatMap((file) =>
    [...text(file).matchAll(/\b([A-Za-z]+(?:-[a-z]+)?|\d+) (required )?(inputs|outputs)\b/g)].flatMap((m) => {
      const n = numberOf(m[1] ?? '');
      return n === undefined ? [] : [{ file, phrase: m[0], n, required: Boolean(m[2]), of: m[3] }];
    }),
  );

  it('finds the counts it checks', () => {
    expect(counts.length).toBeGreaterThan(0);
  });

  it('match action.yml: every count of inputs and outputs', () => {
    const wrong = counts
      .filter((c) => c.n !== (c.required ? localRunInputs : c.of === 'inputs' ? inputs : outputs))
      .map((c) => `${c.file}: "${c.phrase}"`);
    expect(wrong).toEqual([]);
  });

  it('names every input that takes its default when a local run leaves it empty', () => {
    const design = text('docs/design.md');
    const listed = /Inputs added after 1\.0 that have a default \(([^)]*)\)/.exec(design)?.[1] ?? '';
    const named = [...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(Object.keys(OPTIONAL_DEFAULTS).sort());
  });
});
