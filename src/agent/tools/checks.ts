import { tool } from 'ai';
import { z } from 'zod';
import type { CheckProblem } from '../../jobs/job-view.js';
import { validateChanges } from '../checks/validate.js';
import { loadText } from '../text.js';
import type { ToolContext } from './context.js';

const describe = (name: string) => loadText(`./${name}.txt`, import.meta.url);

export function formatProblems(problems: CheckProblem[]): string {
  if (problems.length === 0) return 'No problems: the change is clean.';
  return `${problems.length} problem${problems.length > 1 ? 's' : ''}:\n${problems
    .map((p) => `- ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`)
    .join('\n')}`;
}

export async function runChecks(ctx: ToolContext): Promise<CheckProblem[]> {
  ctx.lastProblems = await validateChanges({
    dir: ctx.dir,
    guard: ctx.guard,
    framework: ctx.framework,
    baseSha: ctx.baseSha,
  });
  return ctx.lastProblems;
}

export function checkTools(ctx: ToolContext) {
  return {
    validate: tool({
      description: describe('validate'),
      inputSchema: z.object({}),
      execute: async () => formatProblems(await runChecks(ctx)),
    }),
    finish: tool({
      description: describe('finish'),
      inputSchema: z.object({ title: z.string().min(1).max(200), summary: z.string().min(1).max(20_000) }),
      execute: async ({ title, summary }) => {
        ctx.finished = { title: title.trim(), summary: summary.trim() };
        return 'Recorded. Checking the change…';
      },
    }),
  };
}
