import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { git } from '../git/git.js';
import type { ChangedFile } from './checks/validate.js';
import { whyNotWritable } from './guardrails.js';
import type { PathGuard } from './guardrails.js';
import type { AgentLimits } from './tools/context.js';

/**
 * The last gate before commit, whatever the tools did: every changed path is a writable docs
 * file inside the docs root, no symlink or submodule appears, sizes and counts are in limits.
 * Returns the violations; any one of them fails the job with `forbidden_change`.
 */
export async function finalDiffViolations(
  dir: string,
  guard: PathGuard,
  changes: ChangedFile[],
  limits: AgentLimits,
  sinceSha: string,
  o: { earlierChanges?: string[] } = {},
): Promise<string[]> {
  const violations: string[] = [];
  // The limit is for the whole job: files its earlier runs changed count too.
  const touched = new Set([...changes.map((c) => c.path), ...(o.earlierChanges ?? [])]);
  if (touched.size > limits.maxChangedFiles) {
    violations.push(`${touched.size} files changed by the job; the limit is ${limits.maxChangedFiles}`);
  }
  for (const c of changes) {
    const rel = guard.relative(path.join(guard.repoRoot, c.path));
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      violations.push(`${c.path} is outside the docs root`);
      continue;
    }
    const why = whyNotWritable(rel);
    if (why) violations.push(why);
    if (c.status !== 'deleted') {
      const st = await lstat(path.join(guard.repoRoot, c.path)).catch(() => null);
      if (st && st.size > limits.maxFileBytes)
        violations.push(`${c.path} is ${st.size} bytes; the limit is ${limits.maxFileBytes}`);
    }
  }
  // Modes: 120000 is a symbolic link, 160000 a submodule; neither may enter a docs change.
  const raw = await git(['diff', '--cached', '--raw', '-z', '--no-renames', sinceSha], { cwd: dir });
  const fields = raw.split('\0');
  for (let i = 0; i < fields.length - 1; i += 2) {
    const meta = fields[i]!.replace(/^:/, '').split(' ');
    const newMode = meta[1];
    if (newMode === '120000' || newMode === '160000') {
      violations.push(`${fields[i + 1]} is a ${newMode === '120000' ? 'symbolic link' : 'submodule'}`);
    }
  }
  return [...new Set(violations)];
}
