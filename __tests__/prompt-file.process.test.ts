// The one promptFile case that needs a tool: Node has no call that makes a FIFO, so `mkfifo` runs
// as a child process, and the file lives in the process project (`npm run test:unit` and `npm run test:runs` start none).
import { afterAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusal } from '../__fixtures__/prompt-file.js';

const workspace = mkdtempSync(join(tmpdir(), 'prompt-fifo-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

it('refuses a FIFO without opening it (which would wait for a writer)', () => {
  execFileSync('mkfifo', [join(workspace, 'prompt.md')]);
  expect(refusal('prompt.md', workspace)).toBe(
    'Input "promptFile" names "prompt.md", which is not a regular file (a FIFO); the prompt is read only from regular files.',
  );
});
