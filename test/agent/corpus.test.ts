import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, HAVE_CORPUS, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { call, finish } from '../support/scripted-model.js';

// End to end on a real documentation site (../shared/corpus/mintlify-docs, 1,500 files).
describe.skipIf(!HAVE_CORPUS)('agent on the Mintlify corpus', () => {
  let s: AgentTestServer;
  let repo: string;
  beforeAll(async () => {
    repo = repoFrom(CORPUS);
    s = await startAgentServer('sqlite', { repository: repo });
  });
  afterAll(async () => s?.close());

  it('one edit: the PR diff is exactly that edit', async () => {
    const before =
      "After you complete this guide, you'll have a live documentation site ready to customize and update.";
    s.model.push(
      call('search', { pattern: 'After you complete this guide', glob: '*.mdx' }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: before,
        new_string: `${before} It takes about ten minutes.`,
      }),
      finish('Say how long the quickstart takes', 'Adds the expected duration to the quickstart intro.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Say in the quickstart how long it takes' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ status: 'completed', checks: [] });
    expect(job.prLink).toMatch(/\/pulls\/\d+$/);
    expect(git(repo, 'diff', '--name-only', `main...redline/${id}`).trim()).toBe('quickstart.mdx');
    const diff = git(repo, 'diff', '-U0', `main...redline/${id}`);
    expect(diff.match(/^[+-](?![+-])/gm)).toEqual(['-', '+']);
    expect(diff).toContain(`+${before} It takes about ten minutes.`);
  });

  it('a new page with its navigation entry: clean checks, a ready PR', async () => {
    s.model.push(
      call('write_file', {
        path: 'guides/redline-sample.mdx',
        content:
          '---\ntitle: "Redline sample"\ndescription: "A page written by the agent."\n---\n\nRead the [quickstart](/quickstart) first.\n',
      }),
      call('edit_file', {
        path: 'docs.json',
        old_string: '                  "quickstart",\n                  "ai-native",',
        new_string:
          '                  "quickstart",\n                  "guides/redline-sample",\n                  "ai-native",',
      }),
      call('validate', {}),
      finish('Add a sample guide', 'Adds guides/redline-sample and lists it under Get started.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Add a sample guide page' })).json().id;
    const job = await s.waitForJob(id);
    expect(job).toMatchObject({ status: 'completed', checks: [] });
    expect(git(repo, 'diff', '--name-only', `main...redline/${id}`).trim().split('\n').sort()).toEqual([
      'docs.json',
      'guides/redline-sample.mdx',
    ]);
    const validated = s.model.requests
      .at(-1)!
      .body.messages.map((m) => JSON.stringify(m))
      .join('');
    expect(validated).toContain('No problems: the change is clean.');
  });

  it('a broken link the model leaves: a draft PR that lists the problem', async () => {
    const page = '---\ntitle: "Half done"\n---\n\nSee [the missing page](/this-page-does-not-exist).\n';
    s.model.push(
      call('write_file', { path: 'half-done.mdx', content: page }),
      call('edit_file', {
        path: 'docs.json',
        old_string: '                  "quickstart",\n                  "ai-native",',
        new_string:
          '                  "quickstart",\n                  "half-done",\n                  "ai-native",',
      }),
      finish('Add a half-done page', 'Adds a page.'),
      // Told about the problem three times, it finishes again without fixing it.
      finish('Add a half-done page', 'Adds a page.'),
      finish('Add a half-done page', 'Adds a page.'),
      finish('Add a half-done page', 'Adds a page.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Add a page' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.status).toBe('completed');
    expect(job.checks).toEqual([
      {
        file: 'half-done.mdx',
        line: 5,
        message: 'broken link: /this-page-does-not-exist (no such page or file)',
      },
    ]);
    const pr = await s.runtime.database.db
      .selectFrom('pull_requests')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(pr.draft).toBe(1);
    expect(pr.body).toContain('half-done.mdx:5');
    expect(pr.body).toContain('/this-page-does-not-exist');
    const notes = (await s.api('GET', `job/${id}/messages`))
      .json()
      .messages.filter((m: { role: string }) => m.role === 'system');
    expect(notes).toHaveLength(3);
    expect(s.model.exhausted).toBe(false);
  });

  it('binary media are not written to the worktree, yet links to them resolve and they can be moved', async () => {
    const image = git(repo, 'ls-files', 'images/*.png').split('\n')[0]!;
    const moved = image.replace(/\.png$/, '-renamed.png');
    s.model.push(
      call('read_file', { path: image }),
      call('write_file', {
        path: 'media-check.mdx',
        content: `---\ntitle: "Media"\n---\n\n![shot](/${image})\n`,
      }),
      call('move_file', { from: image, to: moved }),
      finish('Media', 'Moves an image.'),
      finish('Media', 'Moves an image.'),
      finish('Media', 'Moves an image.'),
      finish('Media', 'Moves an image.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Media' })).json().id;
    const job = await s.waitForJob(id);
    const tools = (await s.api('GET', `job/${id}/messages`))
      .json()
      .messages.filter((m: { role: string }) => m.role === 'tool');
    expect(tools[0].content).toBe(`ERROR: ${image} is a binary file`);
    expect(tools[2].content).toBe(`Moved ${image} to ${moved}.`);
    expect(git(repo, 'diff', '--name-status', '-M', `main...redline/${id}`)).toContain(
      `R100\t${image}\t${moved}`,
    );
    // The page links to the old path, which the move broke; the link check sees that through the index.
    expect(job.checks!.map((c) => c.message)).toContain(`broken link: /${image} (no such page or file)`);
  });
});
