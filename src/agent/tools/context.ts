import type { Framework } from '../checks/framework.js';
import type { PathGuard } from '../guardrails.js';

export interface AgentLimits {
  maxFileBytes: number;
  maxChangedFiles: number;
}

/** What every tool of one run shares. */
export interface ToolContext {
  dir: string;
  guard: PathGuard;
  framework: Framework;
  /** The commit the pull request compares against; `validate` checks the change since it. */
  baseSha: string;
  limits: AgentLimits;
  signal: AbortSignal;
  /** Docs-root-relative paths the tools changed in this run. */
  changed: Set<string>;
  /** Set by `finish`. */
  finished: { title: string; summary: string } | null;
}

/** Tool results are text the model reads; a refused call says why and the loop goes on. */
export const refuse = (message: string) => `ERROR: ${message}`;

/**
 * Claims places in the changed-files budget for `rels`, or says why not. Synchronous on purpose:
 * the model may call several tools in one step and they run concurrently.
 */
export function reserveChanges(ctx: ToolContext, ...rels: string[]): string | null {
  const next = new Set([...ctx.changed, ...rels]);
  if (next.size > ctx.limits.maxChangedFiles) {
    return `this change would touch more than ${ctx.limits.maxChangedFiles} files, the limit for one job`;
  }
  for (const r of rels) ctx.changed.add(r);
  return null;
}
