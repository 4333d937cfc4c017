// The event is read once: GitHub's event names are spelled in one place (src/core/event.ts, which
// parses them into the union), and every rule asks the union's `kind`. A name compared as a
// string anywhere else is a rule that went around the parse.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../__fixtures__/runner.js';

/** GitHub's names of the events the action reads, or may one day. */
const NAMES = new Set([
  'push',
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
  'issues',
  'workflow_run',
  'workflow_dispatch',
  'repository_dispatch',
  'release',
  'schedule',
  'discussion',
  'discussion_comment',
  'merge_group',
]);

/** The files of src/ (src/github/ included) that may name an event by its string. */
const ALLOWED = ['src/core/event.ts', 'src/core/request-event.ts'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Whether `node` is the union's discriminant, not a name: `kind: 'push'`, `x.kind === 'push'`, `case` of `switch (x.kind)`. */
function isKind(node: ts.Node): boolean {
  const parent = node.parent;
  const namedKind = (n: ts.Node | undefined) =>
    n !== undefined &&
    ((ts.isPropertyAccessExpression(n) && n.name.text === 'kind') ||
      ((ts.isPropertySignature(n) || ts.isPropertyAssignment(n)) && n.name.getText() === 'kind'));
  if (ts.isLiteralTypeNode(parent)) return namedKind(parent.parent);
  if (ts.isPropertyAssignment(parent)) return namedKind(parent);
  if (ts.isBinaryExpression(parent)) {
    const other = parent.left === node ? parent.right : parent.left;
    return namedKind(other);
  }
  if (ts.isCaseClause(parent)) return namedKind(parent.parent.parent.expression);
  return false;
}

/** The event names `source` spells as strings, other than as the union's kind. */
function namesIn(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text)) {
      if (!isKind(node)) found.push(node.text);
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** The files under `dir` that name an event by its string, with the names. */
function naming(dir: string): Record<string, string[]> {
  const named: Record<string, string[]> = {};
  for (const path of files(dir)) {
    const file = relative(ROOT, path).split('\\').join('/');
    const names = namesIn(path);
    if (names.length > 0) named[file] = [...new Set(names)];
  }
  return named;
}

describe('event names', () => {
  it('are spelled in at most two files of src/, the parser among them', () => {
    const named = naming(join(ROOT, 'src'));
    expect(ALLOWED.length).toBeLessThanOrEqual(2);
    expect(Object.keys(named).filter((file) => !ALLOWED.includes(file))).toEqual([]);
    expect(Object.keys(named)).toContain('src/core/event.ts');
  });

  it('nothing in src/ but the parser reads the event name from the runner', () => {
    const readers = files(join(ROOT, 'src'))
      .filter((path) => readFileSync(path, 'utf8').includes('GITHUB_EVENT_NAME'))
      .map((path) => relative(ROOT, path).split('\\').join('/'));
    expect(readers).toEqual(['src/core/event.ts']);
  });

  it('tells a name from the union’s kind', () => {
    const probe = (code: string) => {
      const source = ts.createSourceFile('probe.ts', code, ts.ScriptTarget.Latest, true);
      const hits: boolean[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteral(node) && NAMES.has(node.text)) hits.push(!isKind(node));
        node.forEachChild(visit);
      };
      visit(source);
      return hits;
    };
    expect(probe("if (event.kind === 'push') {}")).toEqual([false]);
    expect(probe("switch (event.kind) { case 'push': }")).toEqual([false]);
    expect(probe("type E = { kind: 'push' }; const e = { kind: 'push' };")).toEqual([false, false]);
    expect(probe("if (run.eventName === 'push') {}")).toEqual([true]);
    expect(probe("switch (run.eventName) { case 'push': }")).toEqual([true]);
    expect(probe("const EVENTS = new Set(['push', 'issues']);")).toEqual([true, true]);
    expect(probe("if (name !== 'workflow_run') {}")).toEqual([true]);
  });
});
