import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { describe, guarded } from './common.js';
import { refuse, reserveChanges } from './context.js';
import type { ToolContext } from './context.js';

export const writeFileTool = (ctx: ToolContext) =>
  tool({
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
  });
