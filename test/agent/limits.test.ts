import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { runRedline } from '../support/processes.js';
import { call, finish } from '../support/scripted-model.js';

describe('agent limits', () => {
  let s: AgentTestServer;
  let repo: string;
  beforeAll(async () => {
    repo = repoFrom(FIXTURE);
    s = await startAgentServer('sqlite', {
      repository: repo,
      env: {
        REDLINE_AGENT_MAX_FILE_BYTES: '2048',
        REDLINE_AGENT_MAX_CHANGED_FILES: '2',
        REDLINE_MODEL_MAX_RETRIES: '1',
      },
    });
  });
  afterAll(async () => s?.close());

  const worktrees = () => readdirSync(path.join(s.database.dataDir, 'worktrees'));

  it('refuses a file over the size limit and changes beyond the file-count limit', async () => {
    const page = (n: number) => ({ path: `p${n}.mdx`, content: `---\ntitle: P${n}\n---\n\nText.\n` });
    s.model.push(
      call('write_file', { path: 'big.mdx', content: 'x'.repeat(3000) }),
      // Three writes in one step run concurrently; the budget still holds.
      { toolCalls: [1, 2, 3].map((n) => ({ name: 'write_file', args: page(n) })) },
      // Told three times that the pages are not in the navigation, it finishes anyway.
      ...[1, 2, 3, 4].map(() => finish('Pages', 'Two pages.')),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Write pages' })).json().id;
    const job = await s.waitForJob(id);
    const tools = (await s.api('GET', `job/${id}/messages`))
      .json()
      .messages.filter((m: { role: string }) => m.role === 'tool');
    expect(tools[0].content).toBe('ERROR: content is 3000 bytes; the limit is 2048');
    expect(tools.slice(1, 4).map((t: { content: string }) => t.content)).toEqual([
      'Created p1.mdx (25 bytes).',
      'Created p2.mdx (25 bytes).',
      'ERROR: this change would touch more than 2 files, the limit for one job',
    ]);
    expect(job.status).toBe('completed');
    expect(git(repo, 'diff', '--name-only', `main...redline/${id}`).trim().split('\n')).toEqual([
      'p1.mdx',
      'p2.mdx',
    ]);

    // The limit is for the job: a follow-up may edit those two files, not add a third.
    s.model.push(
      call('write_file', page(4)),
      call('edit_file', { path: 'p1.mdx', old_string: 'Text.', new_string: 'More text.' }),
      ...[1, 2, 3, 4].map(() => finish('Pages', 'Two pages.')),
    );
    await s.api('POST', `job/${id}/message`, { prompt: 'One more page' });
    await s.waitForJob(id, (j) => j.status !== 'active');
    const all = (await s.api('GET', `job/${id}/messages`)).json().messages as {
      role: string;
      runId: string;
      content: string;
    }[];
    const followUpRun = all.filter((m) => m.role === 'user').at(-1)!.runId;
    const later = all.filter((m) => m.runId === followUpRun && m.role === 'tool');
    expect(later.slice(0, 2).map((t) => t.content)).toEqual([
      'ERROR: this change would touch more than 2 files, the limit for one job',
      'Edited p1.mdx: 1 replacement.',
    ]);
    expect(git(repo, 'diff', '--name-only', `main...redline/${id}`).trim().split('\n')).toEqual([
      'p1.mdx',
      'p2.mdx',
    ]);
    // The new pages are not in the navigation: the PR is a draft that says so.
    expect(job.checks!.map((c) => c.message)).toEqual([
      'new page is not in the navigation (docs.json)',
      'new page is not in the navigation (docs.json)',
    ]);
  });

  it('removes the worktree after a failed run too, and counts the tokens it used', async () => {
    s.model.push(call('read_file', { path: 'index.mdx' }), { status: 500 }, { status: 500 });
    const id = (await s.api('POST', 'job', { prompt: 'Fail' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.error!.code).toBe('model_unavailable');
    // One answered call of the scripted model: 20 input and 10 output tokens.
    expect(job.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(worktrees()).toEqual([]);
  });

  it('lists and shows local pull requests from the CLI', async () => {
    const list = await runRedline(['pr', 'list', '--project', s.project.id, '--json'], s.database.env);
    expect(list.code).toBe(0);
    const prs = JSON.parse(list.output);
    expect(prs.length).toBeGreaterThanOrEqual(1);
    expect(prs[0]).not.toHaveProperty('diff');
    const show = await runRedline(
      ['pr', 'show', String(prs[0].number), '--project', s.project.id],
      s.database.env,
    );
    expect(show.code).toBe(0);
    expect(show.output).toContain(prs[0].title);
    expect(show.output).toContain('diff --git');
    const missing = await runRedline(['pr', 'show', '999', '--project', s.project.id], s.database.env);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('#999 not found');
  });
});

describe('agent wall time', () => {
  it('a run over REDLINE_AGENT_TIMEOUT_SECONDS fails with timeout and pushes nothing', async () => {
    const repo = repoFrom(FIXTURE);
    const s = await startAgentServer('sqlite', {
      repository: repo,
      env: { REDLINE_AGENT_TIMEOUT_SECONDS: '1', REDLINE_MODEL_TIMEOUT_SECONDS: '30' },
    });
    try {
      s.model.push(call('write_file', { path: 'a.mdx', content: '---\ntitle: A\n---\n' }), { hang: true });
      const id = (await s.api('POST', 'job', { prompt: 'Slow' })).json().id;
      const job = await s.waitForJob(id);
      expect(job.error).toMatchObject({ code: 'timeout' });
      expect(git(repo, 'branch', '--list', `redline/${id}`).trim()).toBe('');
    } finally {
      await s.close();
    }
  });
});

describe('agent step limit', () => {
  let s: AgentTestServer;
  beforeAll(async () => {
    s = await startAgentServer('sqlite', {
      repository: repoFrom(FIXTURE),
      env: { REDLINE_AGENT_MAX_STEPS: '4' },
    });
  });
  afterAll(async () => s?.close());

  it('stops at the step limit: the work so far becomes a draft PR that says why', async () => {
    s.model.push(
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: '## Install\n',
        new_string: '## Install Acme\n',
      }),
      call('read_file', { path: 'index.mdx' }),
      call('read_file', { path: 'index.mdx' }),
      call('read_file', { path: 'index.mdx' }),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Keep reading' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.status).toBe('completed');
    expect(job.summary).toContain('stopped at its limit of 4 steps');
    expect(job.checks).toEqual([
      { file: '(agent)', message: 'The agent stopped at its limit of 4 steps before finishing.' },
    ]);
    const pr = await s.runtime.database.db
      .selectFrom('pull_requests')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(pr.draft).toBe(1);
    expect(readdirSync(path.join(s.database.dataDir, 'worktrees'))).toEqual([]);
  });
});
