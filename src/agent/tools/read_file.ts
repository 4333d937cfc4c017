import { readFile } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { describe, guarded, notWrittenOut } from './common.js';
import { refuse } from './context.js';
import type { ToolContext } from './context.js';

const DEFAULT_READ_LINES = 400;

export const readFileTool = (ctx: ToolContext) =>
  tool({
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
  });
