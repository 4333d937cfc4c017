import { lstat, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { git } from '../../git/git.js';
import { describe, guarded, LITERAL, notWrittenOut } from './common.js';
import { refuse, reserveChanges } from './context.js';
import type { ToolContext } from './context.js';

export const moveFileTool = (ctx: ToolContext) =>
  tool({
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
  });
