import { tool } from 'ai';
import { z } from 'zod';
import { git } from '../../git/git.js';
import { describe, guarded, pathspec, stripRoot } from './common.js';
import { refuse } from './context.js';
import type { ToolContext } from './context.js';

const MAX_SEARCH_LINES = 200;

export const searchTool = (ctx: ToolContext) =>
  tool({
    description: describe('search'),
    inputSchema: z.object({
      pattern: z.string().min(1),
      path: z.string().optional(),
      glob: z.string().optional(),
    }),
    execute: ({ pattern, path: dir, glob }) =>
      guarded(async () => {
        const spec = await pathspec(ctx, dir, glob);
        let out: string;
        try {
          out = await git(
            ['grep', '--untracked', '-n', '-I', '-E', '--max-count=20', '-e', pattern, '--', ...spec],
            { cwd: ctx.dir, signal: ctx.signal, maxBuffer: 8 * 1024 * 1024 },
          );
        } catch (err) {
          const e = err as { exitCode?: number; message: string };
          if (e.exitCode === 1) return 'No matches.';
          return refuse(`search failed: ${e.message.replace(/^git grep failed \(exit \d+\): /, '')}`);
        }
        const lines = out
          .split('\n')
          .filter(Boolean)
          .map((l) => {
            const i = l.indexOf(':');
            return `${stripRoot(ctx, l.slice(0, i))}${l.slice(i)}`.slice(0, 400);
          })
          .filter((l) => !l.startsWith('..'));
        const shown = lines.slice(0, MAX_SEARCH_LINES).join('\n');
        return lines.length > MAX_SEARCH_LINES
          ? `${shown}\n… ${lines.length - MAX_SEARCH_LINES} more matches; narrow the search.`
          : shown;
      }),
  });
