import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { git } from '../../git/git.js';
import { isSparseExcluded } from '../../git/workspace.js';
import { GuardError } from '../guardrails.js';
import { loadText } from '../text.js';
import { reserveChanges, refuse } from './context.js';
import type { ToolContext } from './context.js';

const describe = (name: string) => loadText(`./${name}.txt`, import.meta.url);
const MAX_LIST = 500;
const MAX_SEARCH_LINES = 200;
const DEFAULT_READ_LINES = 400;

/** Runs a tool body; guard refusals and file errors become text the model can act on. */
async function guarded(fn: () => Promise<string>): Promise<string> {
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
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** The pathspec for `path` and `glob` inside the docs root, for git ls-files and git grep. */
async function pathspec(ctx: ToolContext, dir?: string, glob?: string): Promise<string[]> {
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
async function notWrittenOut(ctx: ToolContext, abs: string, rel: string): Promise<boolean> {
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

const stripRoot = (ctx: ToolContext, repoPath: string) =>
  ctx.guard.relative(path.join(ctx.guard.repoRoot, repoPath));

export function fileTools(ctx: ToolContext) {
  return {
    list_files: tool({
      description: describe('list_files'),
      inputSchema: z.object({ path: z.string().optional(), glob: z.string().optional() }),
      execute: ({ path: dir, glob }) =>
        guarded(async () => {
          const out = await git(
            [
              'ls-files',
              '--cached',
              '--others',
              '--exclude-standard',
              '-z',
              '--',
              ...(await pathspec(ctx, dir, glob)),
            ],
            {
              cwd: ctx.dir,
              signal: ctx.signal,
            },
          );
          const files = out
            .split('\0')
            .filter(Boolean)
            .map((f) => stripRoot(ctx, f))
            .filter((f) => !f.startsWith('..'))
            .sort();
          if (files.length === 0) return 'No files match.';
          const shown = files.slice(0, MAX_LIST).join('\n');
          return files.length > MAX_LIST
            ? `${shown}\n… ${files.length - MAX_LIST} more; narrow path or glob.`
            : shown;
        }),
    }),

    read_file: tool({
      description: describe('read_file'),
      inputSchema: z.object({
        path: z.string(),
        offset: z.number().int().min(1).optional(),
        limit: z.number().int().min(1).max(2000).optional(),
      }),
      execute: ({ path: p, offset = 1, limit = DEFAULT_READ_LINES }) =>
        guarded(async () => {
          const { abs, rel } = await ctx.guard.resolve(p, 'read');
          if (await notWrittenOut(ctx, abs, rel)) return refuse(`${rel} is a binary file`);
          const buf = await readFile(abs);
          if (buf.subarray(0, 8000).includes(0)) return refuse(`${p} is a binary file`);
          const lines = buf.toString('utf8').split('\n');
          const slice = lines.slice(offset - 1, offset - 1 + limit);
          const body = slice.map((l, i) => `${String(offset + i).padStart(5)}| ${l}`).join('\n');
          const end = offset - 1 + slice.length;
          return end < lines.length
            ? `${body}\n… lines ${end + 1}–${lines.length} not shown; use offset.`
            : body;
        }),
    }),

    search: tool({
      description: describe('search'),
      inputSchema: z.object({
        pattern: z.string().min(1),
        path: z.string().optional(),
        glob: z.string().optional(),
      }),
      execute: ({ pattern, path: dir, glob }) =>
        guarded(async () => {
          const spec = await pathspec(ctx, dir, glob);
          let out: string;
          try {
            out = await git(
              ['grep', '--untracked', '-n', '-I', '-E', '--max-count=20', '-e', pattern, '--', ...spec],
              { cwd: ctx.dir, signal: ctx.signal, maxBuffer: 8 * 1024 * 1024 },
            );
          } catch (err) {
            const e = err as { exitCode?: number; message: string };
            if (e.exitCode === 1) return 'No matches.';
            return refuse(`search failed: ${e.message.replace(/^git grep failed \(exit \d+\): /, '')}`);
          }
          const lines = out
            .split('\n')
            .filter(Boolean)
            .map((l) => {
              const i = l.indexOf(':');
              return `${stripRoot(ctx, l.slice(0, i))}${l.slice(i)}`.slice(0, 400);
            })
            .filter((l) => !l.startsWith('..'));
          const shown = lines.slice(0, MAX_SEARCH_LINES).join('\n');
          return lines.length > MAX_SEARCH_LINES
            ? `${shown}\n… ${lines.length - MAX_SEARCH_LINES} more matches; narrow the search.`
            : shown;
        }),
    }),

    write_file: tool({
      description: describe('write_file'),
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: ({ path: p, content }) =>
        guarded(async () => {
          const { abs, rel } = await ctx.guard.resolve(p, 'write');
          const size = Buffer.byteLength(content);
          if (size > ctx.limits.maxFileBytes)
            return refuse(`content is ${size} bytes; the limit is ${ctx.limits.maxFileBytes}`);
          const over = reserveChanges(ctx, rel);
          if (over) return refuse(over);
          const existed = await lstat(abs).then(
            () => true,
            () => false,
          );
          await mkdir(path.dirname(abs), { recursive: true });
          await writeFile(abs, content);
          return `${existed ? 'Replaced' : 'Created'} ${rel} (${size} bytes).`;
        }),
    }),

    edit_file: tool({
      description: describe('edit_file'),
      inputSchema: z.object({
        path: z.string(),
        old_string: z.string().min(1),
        new_string: z.string(),
        replace_all: z.boolean().optional(),
      }),
      execute: ({ path: p, old_string, new_string, replace_all }) =>
        guarded(async () => {
          const { abs, rel } = await ctx.guard.resolve(p, 'write');
          const text = await readFile(abs, 'utf8');
          const count = text.split(old_string).length - 1;
          if (count === 0)
            return refuse(`old_string was not found in ${rel}; read the file and copy the text exactly`);
          if (count > 1 && !replace_all) {
            return refuse(
              `old_string appears ${count} times in ${rel}; add surrounding lines to make it unique, or set replace_all`,
            );
          }
          const next = replace_all
            ? text.split(old_string).join(new_string)
            : text.replace(old_string, () => new_string);
          if (Buffer.byteLength(next) > ctx.limits.maxFileBytes)
            return refuse(`the result would exceed ${ctx.limits.maxFileBytes} bytes`);
          const over = reserveChanges(ctx, rel);
          if (over) return refuse(over);
          await writeFile(abs, next);
          return `Edited ${rel}: ${replace_all ? count : 1} replacement${(replace_all ? count : 1) > 1 ? 's' : ''}.`;
        }),
    }),

    delete_file: tool({
      description: describe('delete_file'),
      inputSchema: z.object({ path: z.string() }),
      execute: ({ path: p }) =>
        guarded(async () => {
          const { abs, rel } = await ctx.guard.resolve(p, 'write');
          const sparse = await notWrittenOut(ctx, abs, rel);
          if (!sparse && !(await lstat(abs)).isFile()) return refuse(`${rel} is not a file`);
          const over = reserveChanges(ctx, rel);
          if (over) return refuse(over);
          if (sparse)
            await git(['rm', '--sparse', '--quiet', '--', ctx.guard.repoPath(rel)], {
              cwd: ctx.dir,
              env: LITERAL,
            });
          else await rm(abs);
          return `Deleted ${rel}.`;
        }),
    }),

    move_file: tool({
      description: describe('move_file'),
      inputSchema: z.object({ from: z.string(), to: z.string() }),
      execute: ({ from, to }) =>
        guarded(async () => {
          const src = await ctx.guard.resolve(from, 'write');
          const dst = await ctx.guard.resolve(to, 'write');
          const sparse = await notWrittenOut(ctx, src.abs, src.rel);
          if (!sparse && !(await lstat(src.abs)).isFile()) return refuse(`${src.rel} is not a file`);
          if (
            await lstat(dst.abs).then(
              () => true,
              () => false,
            )
          )
            return refuse(`${dst.rel} already exists`);
          const over = reserveChanges(ctx, src.rel, dst.rel);
          if (over) return refuse(over);
          await mkdir(path.dirname(dst.abs), { recursive: true });
          if (sparse) {
            await git(['mv', '--sparse', '--', ctx.guard.repoPath(src.rel), ctx.guard.repoPath(dst.rel)], {
              cwd: ctx.dir,
              env: LITERAL,
            });
          } else {
            await rename(src.abs, dst.abs);
          }
          return `Moved ${src.rel} to ${dst.rel}.`;
        }),
    }),
  };
}
