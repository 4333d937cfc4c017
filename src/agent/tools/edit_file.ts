import { readFile, writeFile } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { describe, guarded } from './common.js';
import { refuse, reserveChanges } from './context.js';
import type { ToolContext } from './context.js';

export const editFileTool = (ctx: ToolContext) =>
  tool({
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
  });
