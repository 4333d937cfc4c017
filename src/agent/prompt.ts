import { lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Framework } from './checks/framework.js';
import { loadText } from './text.js';

const TEMPLATE = loadText('./prompts/system.txt', import.meta.url);

/** The repository's own guidance for agents and contributors, most specific first. */
const NOTE_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  'CONTRIBUTING.md',
  'STYLE.md',
  'STYLEGUIDE.md',
  'style-guide.md',
  'style-guide.mdx',
  '.github/CONTRIBUTING.md',
];
const NOTES_BUDGET_CHARS = 16_000;

/**
 * A note file as text, at most `maxChars` of it. Regular files only: a note that is a symlink
 * could pull a file of the server into a prompt sent to a model provider.
 */
async function readNote(repoRoot: string, file: string, maxChars: number): Promise<string | null> {
  const st = await lstat(file).catch(() => null);
  if (!st?.isFile()) return null;
  // A folder on the way (.github, the docs root) could be a link too.
  const real = await realpath(file);
  if (!real.startsWith((await realpath(repoRoot)) + path.sep)) return null;
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(st.size, maxChars * 4 + 4));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    // A bigger file reads as at least maxChars characters, so the caller marks it as cut.
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Reads the notes in the docs root and the repository root, within a size budget. */
export async function repositoryNotes(repoRoot: string, docsRoot: string): Promise<string> {
  const seen = new Set<string>();
  const sections: string[] = [];
  let budget = NOTES_BUDGET_CHARS;
  for (const dir of [docsRoot, repoRoot]) {
    for (const name of NOTE_FILES) {
      const file = path.join(dir, name);
      if (seen.has(file) || budget <= 0) continue;
      seen.add(file);
      const text = await readNote(repoRoot, file, budget);
      if (text === null || text.trim() === '') continue;
      const label = path.relative(repoRoot, file) || name;
      const body =
        text.length > budget ? `${text.slice(0, budget)}\n[… the rest of ${label} is cut to fit]` : text;
      budget -= body.length;
      sections.push(`<file name="${label}">\n${body.trim()}\n</file>`);
    }
  }
  if (sections.length === 0) return '';
  return `\nThe repository's own notes for contributors and agents follow. Follow them where they apply to docs changes.\n\n${sections.join('\n\n')}`;
}

export function systemPrompt(o: {
  framework: Framework;
  notes: string;
  maxSteps: number;
  maxChangedFiles: number;
}): string {
  const values: Record<string, string> = {
    framework: o.framework.name,
    navigation: o.framework.navigation ?? 'the navigation the site uses',
    maxSteps: String(o.maxSteps),
    maxChangedFiles: String(o.maxChangedFiles),
    notes: o.notes,
  };
  return TEMPLATE.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}
