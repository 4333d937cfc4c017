// The plain path, through the bundle under Node 24 against both emulators: a run that asks for
// nothing on GitHub makes no GitHub request and runs from a copy of dist/ without the chunks of
// the GitHub side, which only a child process running that copy can show. The docs pull request's
// labels and reviewers are in run.github-docs.test.ts, in process.
import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emulators, gitHubEmulators, inputsFor, run, warnings } from '../__fixtures__/e2e.js';
import { gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';
import { ROOT } from '../__fixtures__/runner.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('the plain path', () => {
  it('makes no GitHub request and never loads the GitHub chunk', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    // A copy of dist/ without its chunks: the plain path must not need them.
    const copy = mkdtempSync(join(tmpdir(), 'dist-no-chunks-'));
    cpSync(join(ROOT, 'dist'), copy, { recursive: true });
    const chunks = readdirSync(copy).filter((f) => /^\d+\.index\.js(\.map)?$/.test(f));
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) rmSync(join(copy, chunk));

    const plain = await run({
      inputs: inputsFor(service),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
      action: join(copy, 'index.js'),
    });
    expect(plain.code).toBe(0);
    expect(gh.requests).toEqual([]);

    // The same copy with comment: true does need them, so the test can fail.
    const asked = await run({
      inputs: inputsFor(service, { comment: 'true' }),
      env: gitHubEnv(gh),
      event: pullRequestEvent(pr.number),
      action: join(copy, 'index.js'),
    });
    expect(asked.code).toBe(0);
    expect(warnings(asked)[0]).toMatch(/^Could not load the GitHub side of the action: /);
    expect(gh.requests).toEqual([]);
  });
});
