import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { FIXTURE, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { call, finish } from '../support/scripted-model.js';

describeEachDialect('agent on a local repository', (dialect) => {
  let s: AgentTestServer;
  let repo: string;
  beforeAll(async () => {
    repo = repoFrom(FIXTURE);
    s = await startAgentServer(dialect, { repository: repo });
  });
  afterAll(async () => s?.close());

  it('one edit: completes with a PR whose diff is exactly that edit', async () => {
    s.model.push(
      call('read_file', { path: 'quickstart.mdx' }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: 'Run `acme log` to print the latest logs.',
        new_string:
          'Run `acme log` to print the latest logs. Add `--since 1h` to limit them to the last hour.',
      }),
      call('validate', {}),
      finish('Document acme log --since', 'Adds the --since flag to the quickstart.'),
    );
    const created = await s.api('POST', 'job', { prompt: 'Document the --since flag of acme log' });
    expect(created.statusCode).toBe(201);
    const job = await s.waitForJob(created.json().id);
    expect(job).toMatchObject({ status: 'completed', error: null, checks: [], branch: `redline/${job.id}` });
    expect(job.prLink).toBe(`http://redline.test/projects/${s.project.id}/pulls/1`);
    expect(job.summary).toContain('--since');
    expect(job.usage!.totalTokens).toBeGreaterThan(0);

    const diff = git(repo, 'diff', `main...redline/${job.id}`);
    expect(git(repo, 'diff', '--name-only', `main...redline/${job.id}`).trim()).toBe('quickstart.mdx');
    expect(diff).toContain('-Run `acme log` to print the latest logs.');
    expect(diff).toContain(
      '+Run `acme log` to print the latest logs. Add `--since 1h` to limit them to the last hour.',
    );
    expect(diff.match(/^[+-][^+-]/gm)).toHaveLength(2);
    expect(git(repo, 'log', '--format=%an <%ae>|%s', '-1', `redline/${job.id}`).trim()).toBe(
      'Redline <redline@localhost>|Document acme log --since',
    );
    // The base branch is untouched.
    expect(git(repo, 'status', '--porcelain').trim()).toBe('');

    const page = await s.inject({ method: 'GET', url: new URL(job.prLink!).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Document acme log --since');
    expect(page.body).toContain('Add `--since 1h` to limit them');

    // The model saw the nine tools, the framework and the repository's notes.
    const first = s.model.requests[s.model.requests.length - 4]!;
    const tools = (first.body.tools ?? []).map((t) => t.function?.name ?? t.name).sort();
    expect(tools).toEqual([
      'delete_file',
      'edit_file',
      'finish',
      'list_files',
      'move_file',
      'read_file',
      'search',
      'validate',
      'write_file',
    ]);
    const system = JSON.stringify(first.body.messages[0]);
    expect(system).toContain('Mintlify (docs.json)');
    expect(system).toContain('Use sentence case for headings');

    const messages = (await s.api('GET', `job/${job.id}/messages`)).json().messages as {
      role: string;
      toolName: string | null;
    }[];
    expect(messages[0]!.role).toBe('user');
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.toolName)).toEqual([
      'read_file',
      'edit_file',
      'validate',
      'finish',
    ]);
    expect(s.model.exhausted).toBe(false);
  });
});
