import { tool } from 'ai';
import { z } from 'zod';
import { git } from '../../git/git.js';
import { describe, guarded, pathspec, stripRoot } from './common.js';
import type { ToolContext } from './context.js';

const MAX_LIST = 500;

export const listFilesTool = (ctx: ToolContext) =>
  tool({
    description: describe('list_files'),
    inputSchema: z.object({ path: z.string().optional(), glob: z.string().optional() }),
    execute: ({ path: dir, glob }) =>
      guarded(async () => {
        const out = await git(
          [
            'ls-files',
            '--cached',
            '--others',
            '--exclude-standard',
            '-z',
            '--',
            ...(await pathspec(ctx, dir, glob)),
          ],
          {
            cwd: ctx.dir,
            signal: ctx.signal,
          },
        );
        const files = out
          .split('\0')
          .filter(Boolean)
          .map((f) => stripRoot(ctx, f))
          .filter((f) => !f.startsWith('..'))
          .sort();
        if (files.length === 0) return 'No files match.';
        const shown = files.slice(0, MAX_LIST).join('\n');
        return files.length > MAX_LIST
          ? `${shown}\n… ${files.length - MAX_LIST} more; narrow path or glob.`
          : shown;
      }),
  });
