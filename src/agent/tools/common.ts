import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { git } from '../../git/git.js';
import { isSparseExcluded } from '../../git/workspace.js';
import { GuardError } from '../guardrails.js';
import { loadText } from '../text.js';
import { refuse } from './context.js';
import type { ToolContext } from './context.js';

/** The model-facing description of a tool, from its .txt file next to this one. */
export const describe = (name: string) => loadText(`./${name}.txt`, import.meta.url);
/** Runs a tool body; guard refusals and file errors become text the model can act on. */
export async function guarded(fn: () => Promise<string>): Promise<string> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GuardError) return refuse(err.message);
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return refuse('no such file');
    if (e.code === 'EISDIR') return refuse('that is a folder, not a file');
    if (e.code === 'ENOTDIR') return refuse('a part of that path is a file, not a folder');
    // Anything else still goes back to the model as text, so one bad call does not end the run.
    return refuse((err as Error).message.slice(0, 500));
  }
}

/** Model-supplied paths go to git as literal paths, never as pathspec patterns or magic. */
export const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** The pathspec for `path` and `glob` inside the docs root, for git ls-files and git grep. */
export async function pathspec(ctx: ToolContext, dir?: string, glob?: string): Promise<string[]> {
  // A glob is a pattern under the folder, never a way out of it or into pathspec magic.
  if (glob !== undefined && (glob.split('/').includes('..') || /^[/:]/.test(glob) || glob.includes('\0'))) {
    throw new GuardError(
      `glob "${glob}" must be a pattern inside the docs root (no "..", no leading "/" or ":")`,
    );
  }
  const base = dir ? (await ctx.guard.resolve(dir, 'read')).rel : '';
  const prefix = ctx.guard.repoPath(base || '.');
  const root = prefix === '' || prefix === '.' ? '' : `${prefix}/`;
  return [glob ? `:(glob)${root}${glob.includes('/') ? glob : `**/${glob}`}` : root || '.'];
}

/**
 * True for a tracked binary the sparse worktree did not write to disk (see Workspaces.checkout):
 * it exists for every purpose but reading, and git moves or removes it.
 */
export async function notWrittenOut(ctx: ToolContext, abs: string, rel: string): Promise<boolean> {
  if (
    !isSparseExcluded(rel) ||
    (await lstat(abs).then(
      () => true,
      () => false,
    ))
  )
    return false;
  const listed = await git(['ls-files', '--', ctx.guard.repoPath(rel)], { cwd: ctx.dir, env: LITERAL });
  return listed.trim() !== '';
}

export const stripRoot = (ctx: ToolContext, repoPath: string) =>
  ctx.guard.relative(path.join(ctx.guard.repoRoot, repoPath));
