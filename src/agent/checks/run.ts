import type { CheckProblem } from '../../jobs/job-view.js';
import { validateChanges } from './validate.js';
import type { ToolContext } from '../tools/context.js';

export function formatProblems(problems: CheckProblem[]): string {
  if (problems.length === 0) return 'No problems: the change is clean.';
  return `${problems.length} problem${problems.length > 1 ? 's' : ''}:\n${problems
    .map((p) => `- ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`)
    .join('\n')}`;
}

export async function runChecks(ctx: ToolContext): Promise<CheckProblem[]> {
  return validateChanges({ dir: ctx.dir, guard: ctx.guard, framework: ctx.framework, baseSha: ctx.baseSha });
}
