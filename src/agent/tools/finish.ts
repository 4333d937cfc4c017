import { tool } from 'ai';
import { z } from 'zod';
import { describe } from './common.js';
import type { ToolContext } from './context.js';

export const finishTool = (ctx: ToolContext) =>
  tool({
    description: describe('finish'),
    inputSchema: z.object({ title: z.string().min(1).max(200), summary: z.string().min(1).max(20_000) }),
    execute: async ({ title, summary }) => {
      ctx.finished = { title: title.trim(), summary: summary.trim() };
      return 'Recorded. Checking the change…';
    },
  });
