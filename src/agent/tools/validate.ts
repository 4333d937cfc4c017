import { tool } from 'ai';
import { z } from 'zod';
import { formatProblems, runChecks } from '../checks/run.js';
import { describe } from './common.js';
import type { ToolContext } from './context.js';

export const validateTool = (ctx: ToolContext) =>
  tool({
    description: describe('validate'),
    inputSchema: z.object({}),
    execute: async () => formatProblems(await runChecks(ctx)),
  });
