// The layout of src/ shows the run: main.ts calls the three steps, and every import goes down a
// floor (or stays in its folder), never up or sideways. A reader who follows one input from
// decide to the request it shapes never climbs back into a step above.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

/** Each folder of src/ and its floor, top first ('' is src/ itself: the entry and run()). */
const FLOORS: Record<string, number> = {
  '': 6,
  execute: 5,
  decide: 4,
  report: 3,
  github: 2,
  service: 1,
  core: 0,
};

const SRC = join(ROOT, 'src');

/** Every relative import in src/, static or `import()`, as [from, to] paths relative to src/. */
function imports(): [string, string][] {
  const found: [string, string][] = [];
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const match of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(file), match[1] ?? '')).replace(/\.js$/, '.ts');
      found.push([file, target]);
    }
  }
  return found;
}

function folderOf(file: string): string {
  const folder = dirname(file);
  return folder === '.' ? '' : folder;
}

describe('src/ imports only downward', () => {
  it('puts every file in a folder with a floor', () => {
    const folders = new Set(
      readdirSync(SRC, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map(folderOf),
    );
    expect([...folders].filter((f) => !(f in FLOORS))).toEqual([]);
  });

  it('has no import that climbs a floor or crosses to another folder of its own floor', () => {
    const all = imports();
    expect(all.length).toBeGreaterThan(100);
    const upward = all.filter(([from, to]) => {
      const here = folderOf(from);
      const there = folderOf(to);
      return here !== there && (FLOORS[there] ?? Infinity) >= (FLOORS[here] ?? -Infinity);
    });
    expect(upward.map(([from, to]) => `${from} -> ${relative('.', to)}`)).toEqual([]);
  });
});

describe('src/ has no import circle', () => {
  it('lets no file reach itself through its imports (type-only ones included)', () => {
    const next = new Map<string, string[]>();
    for (const [from, to] of imports()) next.set(from, [...(next.get(from) ?? []), to]);
    // Tarjan's strongly connected components: a component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const circles: string[][] = [];
    const visit = (file: string) => {
      index.set(file, index.size);
      low.set(file, index.get(file) ?? 0);
      stack.push(file);
      for (const to of next.get(file) ?? []) {
        if (!index.has(to)) {
          visit(to);
          low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
        } else if (stack.includes(to)) low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
      if (low.get(file) !== index.get(file)) return;
      const component: string[] = [];
      for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
        component.push(top);
        if (top === file) break;
      }
      if (component.length > 1) circles.push(component.sort());
    };
    for (const file of next.keys()) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });
});
