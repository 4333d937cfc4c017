// How the tests are laid out, held to its rules: at most 20 test cases start dist/index.js (each
// child process costs seconds of CPU; only what a process alone shows is played through the
// bundle), every file that starts a process or needs the build is in jest's `process` project, and
// the `unit` and `runs` projects (`npm run test:unit`, `npm run test:runs`) need neither.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../__fixtures__/runner.js';

/** The fixtures' functions that start dist/index.js, by the module that exports them. */
const STARTERS: Record<string, string[]> = {
  '../__fixtures__/e2e.js': ['run', 'runAndSignal', 'runAndSignalAt'],
  '../__fixtures__/runner.js': ['runAction'],
};
/** The demo script plays the bundle; a test that runs it starts the bundle. */
const DEMO = /scripts\/demo\.mjs|demo\.mjs'/;
const MAX_BUNDLE_CASES = 20;

const TESTS = join(ROOT, '__tests__');
const FIXTURES = join(ROOT, '__fixtures__');
const testFiles = readdirSync(TESTS).filter((f) => f.endsWith('.test.ts'));
/** jest.config.js's list of the process project's files (plain JavaScript, so read untyped). */
const CONFIG: string = '../jest.config.js';
const { PROCESS_TESTS } = (await import(CONFIG)) as { PROCESS_TESTS: string[] };
const isProcessTest = (file: string) => PROCESS_TESTS.some((p) => new RegExp(p).test(`/${file}`));
const parse = (name: string, text: string) =>
  ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** The names a file imports from each module (as exported, whatever it calls them); types left out. */
function imports(source: ts.SourceFile): { from: string; names: string[] }[] {
  return source.statements
    .filter(ts.isImportDeclaration)
    .filter((declaration) => !declaration.importClause?.isTypeOnly)
    .map((declaration) => {
      const bindings = declaration.importClause?.namedBindings;
      const names =
        bindings && ts.isNamedImports(bindings)
          ? bindings.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text)
          : [];
      return { from: (declaration.moduleSpecifier as ts.StringLiteral).text, names };
    });
}

function startsBundle(source: ts.SourceFile): boolean {
  return (
    DEMO.test(source.text) ||
    imports(source).some(({ from, names }) => names.some((n) => STARTERS[from]?.includes(n)))
  );
}

/** Rows of an `.each` table written as an array literal (a table in any other form: unknown). */
function rows(call: ts.CallExpression): number {
  const [table] = call.arguments;
  if (table && ts.isArrayLiteralExpression(table)) return table.elements.length;
  throw new Error(`an .each table that is not an array literal: ${call.getText().slice(0, 80)}`);
}

/** The test cases a file declares: each `it`/`test`, each row of an `.each`, times its describe.each rows. */
function testCases(source: ts.SourceFile): number {
  const visit = (node: ts.Node, times: number): number => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = (e: ts.Expression): string =>
        ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? name(e.expression) : '';
      // The `.each` forms: a table, then the name and the body.
      if (ts.isCallExpression(callee) && ts.isPropertyAccessExpression(callee.expression)) {
        const each = callee.expression.name.text === 'each';
        const what = name(callee.expression.expression);
        if (each && (what === 'it' || what === 'test')) return times * rows(callee);
        if (each && what === 'describe') {
          const body = node.arguments[1];
          return body ? visit(body, times * rows(callee)) : 0;
        }
      }
      const what = name(callee);
      if ((what === 'it' || what === 'test') && !ts.isCallExpression(callee)) return times;
    }
    let sum = 0;
    node.forEachChild((child) => {
      sum += visit(child, times);
    });
    return sum;
  };
  return visit(source, 1);
}

describe('the test layout', () => {
  const sources = testFiles.map((f) => parse(f, readFileSync(join(TESTS, f), 'utf8')));
  const bundleFiles = sources.filter(startsBundle);

  it(`starts dist/index.js in at most ${MAX_BUNDLE_CASES} test cases`, () => {
    const counts = Object.fromEntries(bundleFiles.map((s) => [s.fileName, testCases(s)]));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    expect({ total, counts }).toEqual({ total: expect.any(Number), counts });
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(MAX_BUNDLE_CASES);
  });

  it('counts every case: it, test, each row of it.each, times the rows of describe.each', () => {
    const source = parse(
      'x.test.ts',
      `describe('a', () => {
        it('one', () => {});
        it.each([[1], [2], [3]])('row %s', () => {});
        describe.each([['x'], ['y']])('%s', () => {
          test('two', () => {});
          it.each<number>([1, 2])('row %s', () => {});
        });
      });`,
    );
    expect(testCases(source)).toBe(1 + 3 + 2 * (1 + 2));
    expect(() => testCases(parse('y.test.ts', "it.each(TABLE)('%s', () => {});"))).toThrow(/array literal/);
  });

  it('puts every file that starts the bundle, or any process, in the process project', () => {
    const spawning = sources.filter(
      (s) => startsBundle(s) || imports(s).some(({ from }) => from === 'node:child_process'),
    );
    expect(bundleFiles.length).toBeGreaterThan(0);
    expect(spawning.map((s) => s.fileName).filter((f) => !isProcessTest(f))).toEqual([]);
  });

  it('starts processes from no fixture but the one that runs the bundle', () => {
    const spawning = readdirSync(FIXTURES)
      .filter((f) => /\.[jt]s$/.test(f))
      .map((f) => parse(f, readFileSync(join(FIXTURES, f), 'utf8')))
      .filter((s) => imports(s).some(({ from }) => from === 'node:child_process'))
      .map((s) => s.fileName);
    expect(spawning).toEqual(['runner.ts']);
  });
});

// The figures docs/development.md gives of the tests are the code's own: each is read from where
// it is set, so a change there fails here until the docs say it (counts that move with every
// test, and times that move with the machine, are not written there at all).
describe('the figures docs/development.md gives of the tests', () => {
  const docs = readFileSync(join(ROOT, 'docs/development.md'), 'utf8').replace(/\s+/g, ' ');
  /** The number a pattern's first group captures in `file` (digits, `_` separators allowed). */
  const figure = (file: string, pattern: RegExp) => {
    const text = file === 'docs' ? docs : readFileSync(join(ROOT, file), 'utf8');
    const found = pattern.exec(text)?.[1];
    if (!found) throw new Error(`${file} no longer says what ${String(pattern)} finds`);
    return Number(found.replace(/[_,]/g, ''));
  };

  it('the cases that start the bundle, and their limit', () => {
    const sources = testFiles.map((f) => parse(f, readFileSync(join(TESTS, f), 'utf8')));
    const total = sources.filter(startsBundle).reduce((sum, s) => sum + testCases(s), 0);
    expect({
      cases: figure('docs', /the demo's test: (\d+) test cases/),
      limit: figure('docs', /the demo's test: \d+ test cases, at most (\d+)\)/),
    }).toEqual({ cases: total, limit: MAX_BUNDLE_CASES });
  });

  it("the model's sequences, its batches and their time", () => {
    const orders = '__tests__/run.orders.test.ts';
    const minutes = figure(orders, /const BATCH_MS = ([\d_]+);/) / 60_000;
    expect({
      runs: figure('docs', /the same (\d+) sequences in the `runs` project/),
      batch: figure('docs', /in batches of (\d+) played one after another/),
      minutes: figure('docs', /each with (\d+) minutes of real time/),
      again: figure('docs', /model's batches \((\d+) minutes each\)/),
    }).toEqual({
      runs: figure(orders, /process\.env\.FC_RUNS \?\? ([\d_]+)/),
      batch: figure(orders, /Math\.ceil\(runs \/ ([\d_]+)\)\)/),
      minutes,
      again: minutes,
    });
  });

  it("jest's limit on a test, the bundle's on a run, and the leak check's wait", () => {
    expect({
      minutes: figure('docs', /A test may take (\d+) minutes before jest fails it/),
      kill: figure('docs', /a run of the bundle is killed at (\d+) s/),
      settle: figure('docs', /what is closing \((\d+) s\)/),
    }).toEqual({
      minutes: figure('jest.config.js', /testTimeout: ([\d_]+)/) / 60_000,
      kill: figure('__fixtures__/runner.ts', /killAfterMs \?\? ([\d_]+)/) / 1000,
      settle: figure('__fixtures__/environment.js', /const SETTLE_MS = ([\d_]+);/) / 1000,
    });
  });
});
