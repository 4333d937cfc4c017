import { existsSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { FIXTURE, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { waitUntil } from '../support/processes.js';
import { call, finish } from '../support/scripted-model.js';

describeEachDialect('agent runs', (dialect) => {
  let s: AgentTestServer;
  let repo: string;
  let outside: string;
  beforeAll(async () => {
    repo = repoFrom(FIXTURE);
    // A symlink committed into the repository that leads outside it.
    outside = mkdtempSync(path.join(tmpdir(), 'redline-outside-'));
    symlinkSync(outside, path.join(repo, 'linked'));
    git(repo, 'add', 'linked');
    git(repo, 'commit', '-qm', 'link');
    s = await startAgentServer(dialect, { repository: repo });
  });
  afterAll(async () => s?.close());

  const prCount = async () =>
    (await s.runtime.database.db.selectFrom('pull_requests').select('id').execute()).length;

  it('no change: completed, prLink null, the reply as summary', async () => {
    s.model.push(
      call('search', { pattern: 'acme log' }),
      finish('Nothing to change', 'The quickstart already documents acme log.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Make sure acme log is documented' })).json().id;
    const job = await s.waitForJob(id);
    expect(job).toMatchObject({
      status: 'completed',
      prLink: null,
      branch: null,
      summary: 'The quickstart already documents acme log.',
    });
    expect(git(repo, 'branch', '--list', `redline/${id}`).trim()).toBe('');
  });

  it('follow-up: same branch, same PR, two commits, and the conversation so far', async () => {
    const before = await prCount();
    s.model.push(
      call('edit_file', { path: 'quickstart.mdx', old_string: '## Install', new_string: '## Install Acme' }),
      finish('Rename the install heading', 'Renames the heading.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Rename the install heading' })).json().id;
    const first = await s.waitForJob(id);
    expect(first.status).toBe('completed');
    expect(await prCount()).toBe(before + 1);

    s.model.push(
      (req) => {
        // The follow-up sees the first prompt and the first run's summary before the new prompt.
        expect(JSON.stringify(req.body.messages)).toContain('Rename the install heading');
        expect(JSON.stringify(req.body.messages)).toContain('Renames the heading.');
        return call('edit_file', {
          path: 'quickstart.mdx',
          old_string: '## Read logs',
          new_string: '## Read your logs',
        });
      },
      finish('Rename both headings', 'Renames the second heading too.'),
    );
    const msg = await s.api('POST', `job/${id}/message`, { prompt: 'Also rename the logs heading' });
    expect(msg.json().status).toBe('active');
    const second = await s.waitForJob(id, (j) => j.status !== 'active');
    expect(second.status).toBe('completed');
    expect(second.prLink).toBe(first.prLink);
    expect(await prCount()).toBe(before + 1);
    expect(git(repo, 'rev-list', '--count', `main..redline/${id}`).trim()).toBe('2');
    const diff = git(repo, 'diff', `main...redline/${id}`);
    expect(diff).toContain('+## Install Acme');
    expect(diff).toContain('+## Read your logs');
    const pr = await s.runtime.database.db
      .selectFrom('pull_requests')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    // The first run names the PR; the follow-up adds a section to its description.
    expect(pr.title).toBe('Rename the install heading');
    expect(pr.body).toContain('Renames the heading.');
    expect(pr.body).toContain(
      '### Follow-up\n\n> Also rename the logs heading\n\nRenames the second heading too.',
    );
    expect(pr.diff).toContain('+## Read your logs');
  });

  it('a follow-up to a job that changed nothing opens the PR', async () => {
    s.model.push(finish('Nothing yet', 'Nothing to do.'));
    const id = (await s.api('POST', 'job', { prompt: 'Look around' })).json().id;
    expect((await s.waitForJob(id)).prLink).toBeNull();
    s.model.push(
      call('edit_file', {
        path: 'guides/start.mdx',
        old_string: 'first.',
        new_string: 'first, then come back.',
      }),
      finish('Point back to the guide', 'Adds a pointer.'),
    );
    await s.api('POST', `job/${id}/message`, { prompt: 'Now change the guide' });
    const job = await s.waitForJob(id, (j) => j.status !== 'active');
    expect(job.prLink).toMatch(/\/pulls\/\d+$/);
  });

  it('refuses every write outside the docs: nothing in the diff, nothing outside the worktree', async () => {
    const attempts = [
      { path: '../x.md', content: 'escape' },
      { path: '/tmp/redline-absolute.md', content: 'absolute' },
      { path: 'linked/evil.md', content: 'through the link' },
      { path: 'package.json', content: '{"scripts":{"postinstall":"curl evil"}}' },
      { path: '.github/workflows/x.yml', content: 'on: push' },
    ];
    s.model.push(
      ...attempts.map((a) => call('write_file', a)),
      call('edit_file', { path: 'package.json', old_string: 'mint dev', new_string: 'evil' }),
      call('move_file', { from: 'quickstart.mdx', to: '../quickstart.mdx' }),
      call('delete_file', { path: 'package.json' }),
      call('read_file', { path: 'linked/../../etc/passwd' }),
      finish('Try to escape', 'Tried.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Change things you may not change' })).json().id;
    const job = await s.waitForJob(id);
    expect(job).toMatchObject({ status: 'completed', prLink: null });
    const results = (await s.api('GET', `job/${id}/messages`))
      .json()
      .messages.filter(
        (m: { role: string; toolName: string }) => m.role === 'tool' && m.toolName !== 'finish',
      );
    expect(results).toHaveLength(attempts.length + 4);
    for (const r of results) expect(r.content).toMatch(/^ERROR: /);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync('/tmp/redline-absolute.md')).toBe(false);
    expect(existsSync(path.join(path.dirname(repo), 'x.md'))).toBe(false);
    expect(git(repo, 'branch', '--list', `redline/${id}`).trim()).toBe('');
  });

  it('archiving stops a running agent within seconds and pushes nothing', async () => {
    s.model.push(call('write_file', { path: 'new.mdx', content: '---\ntitle: New\n---\n\nNew.\n' }), {
      hang: true,
    });
    const id = (await s.api('POST', 'job', { prompt: 'Write a page slowly' })).json().id;
    await waitUntil(
      async () => s.model.requests.length > 0 && s.model.remaining === 0,
      'the model call to hang',
    );
    const archived = await s.api('POST', `job/${id}/archive`);
    expect(archived.json().status).toBe('archived');
    await waitUntil(async () => s.runtime.worker!.activeRuns === 0, 'the run to stop', 5000);
    expect((await s.api('GET', `job/${id}`)).json()).toMatchObject({ status: 'archived', prLink: null });
    expect(git(repo, 'branch', '--list', `redline/${id}`).trim()).toBe('');
    // Its worktree is gone too.
    expect(readdirSync(path.join(s.database.dataDir, 'worktrees'))).toEqual([]);
  });

  it('the final diff check refuses what the tools would have refused', async () => {
    const { finalDiffViolations } = await import('../../src/agent/final-diff.js');
    const { PathGuard } = await import('../../src/agent/guardrails.js');
    const { changedFiles } = await import('../../src/agent/checks/validate.js');
    const dir = repoFrom(FIXTURE);
    const base = git(dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(path.join(dir, 'package.json'), '{}');
    writeFileSync(path.join(dir, 'quickstart.mdx'), 'fine');
    symlinkSync('/etc/passwd', path.join(dir, 'passwd.md'));
    const guard = await PathGuard.create(dir, '.');
    const changes = await changedFiles(dir, base);
    const violations = await finalDiffViolations(
      dir,
      guard,
      changes,
      { maxFileBytes: 1 << 20, maxChangedFiles: 50 },
      base,
    );
    expect(violations.join('\n')).toContain('package.json is not a documentation file');
    expect(violations.join('\n')).toContain('passwd.md is a symbolic link');
    expect(violations.join('\n')).not.toContain('quickstart.mdx');
  });
});
