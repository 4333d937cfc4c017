import { lstat, rm } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { git } from '../../git/git.js';
import { describe, guarded, LITERAL, notWrittenOut } from './common.js';
import { refuse, reserveChanges } from './context.js';
import type { ToolContext } from './context.js';

export const deleteFileTool = (ctx: ToolContext) =>
  tool({
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
  });
