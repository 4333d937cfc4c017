import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspaces } from '../../src/git/workspace.js';
import { FIXTURE, git, repoFrom } from '../support/agent.js';

describe('workspaces', () => {
  it('survive several processes sharing one data directory (separate instances, one mirror)', async () => {
    const repo = repoFrom(FIXTURE);
    const data = mkdtempSync(path.join(tmpdir(), 'redline-ws-'));
    for (let round = 0; round < 4; round++) {
      writeFileSync(path.join(repo, `page-${round}.md`), `# ${round}\n`);
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', `round ${round}`);
      const head = git(repo, 'rev-parse', 'HEAD').trim();
      // Each instance stands for a worker process: none shares the others' in-process lock.
      const trees = await Promise.all(
        Array.from({ length: 5 }, () =>
          new Workspaces(data, { name: 'a', email: 'a@example.com' }).checkout(repo, 'main', 'redline/x'),
        ),
      );
      for (const wt of trees) expect(wt.startSha).toBe(head);
      await Promise.all(
        trees.map((wt) => new Workspaces(data, { name: 'a', email: 'a@example.com' }).remove(repo, wt)),
      );
    }
  });
});
