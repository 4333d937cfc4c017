import { cpSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { call, finish } from '../support/scripted-model.js';

/** The fixture under docs/, with a secret at the repository root and a note that is a symlink. */
function nestedRepo(): string {
  const src = mkdtempSync(path.join(tmpdir(), 'redline-nested-'));
  cpSync(FIXTURE, path.join(src, 'docs'), { recursive: true });
  writeFileSync(path.join(src, 'SECRET.txt'), 'TOP-SECRET-OUTSIDE-DOCS\n');
  writeFileSync(path.join(src, 'docs', 'badge.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  symlinkSync('/etc/hostname', path.join(src, 'CLAUDE.md'));
  return repoFrom(src);
}

describe('hardening', () => {
  let s: AgentTestServer;
  let repo: string;
  beforeAll(async () => {
    repo = nestedRepo();
    s = await startAgentServer('sqlite', { repository: repo, env: { REDLINE_MODEL_MAX_RETRIES: '0' } });
    await s.runtime.database.db
      .updateTable('projects')
      .set({ docs_root: 'docs' })
      .where('id', '=', s.project.id)
      .execute();
    // Set before the first request, so no cached key lookup holds the old project settings.
  });
  afterAll(async () => s?.close());

  const toolResults = async (id: string) =>
    (await s.api('GET', `job/${id}/messages`))
      .json()
      .messages.filter((m: { role: string }) => m.role === 'tool') as {
      toolName: string;
      content: string;
    }[];

  it('search and list_files stay inside the docs root', async () => {
    s.model.push(
      call('search', { pattern: 'SECRET', glob: '../*' }),
      call('search', { pattern: 'SECRET', glob: ':(top)*' }),
      call('search', { pattern: 'SECRET' }),
      call('list_files', { path: '..' }),
      call('delete_file', { path: '*.png' }),
      finish('Look around', 'Looked.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Find secrets' })).json().id;
    await s.waitForJob(id);
    const results = await toolResults(id);
    expect(results[0]!.content).toMatch(/^ERROR: glob/);
    expect(results[1]!.content).toMatch(/^ERROR: glob/);
    expect(results[2]!.content).toBe('No matches.');
    expect(results[3]!.content).toMatch(/^ERROR: .*outside the docs root/);
    expect(results[4]!.content).toBe('ERROR: no such file');
    expect(JSON.stringify(results)).not.toContain('TOP-SECRET');
    expect(git(repo, 'branch', '--list', `redline/${id}`).trim()).toBe('');
    // The repository's CLAUDE.md is a symlink to a server file: it is not read into the prompt.
    const system = JSON.stringify(s.model.requests.at(-1)!.body.messages[0]);
    expect(system).not.toContain((await import('node:fs')).readFileSync('/etc/hostname', 'utf8').trim());
  });

  it('a $ref in docs.json cannot read files outside the docs root, nor quote them', async () => {
    s.model.push(
      call('edit_file', {
        path: 'docs.json',
        old_string: '"groups": [',
        new_string: '"groups": [{ "$ref": "/etc/passwd" }, { "$ref": "../SECRET.txt" },',
      }),
      call('validate', {}),
      finish('Break the nav', 'Refs.'),
      finish('Break the nav', 'Refs.'),
      finish('Break the nav', 'Refs.'),
      finish('Break the nav', 'Refs.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Refs' })).json().id;
    const job = await s.waitForJob(id);
    const validated = (await toolResults(id)).find((r) => r.toolName === 'validate')!.content;
    expect(validated).toContain('is not a file inside the docs root');
    const everything = JSON.stringify([job, await toolResults(id)]);
    expect(everything).not.toContain('root:x');
    expect(everything).not.toContain('TOP-SECRET');
  });

  it('a tool call with bad arguments is an error the model reads; the run goes on', async () => {
    s.model.push(
      call('write_file', { path: 'docs-note.mdx' }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: '## Install\n',
        new_string: '## Installation\n',
      }),
      finish('Rename', 'Renamed.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Rename' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.status).toBe('completed');
    expect(job.summary).toBe('Renamed.');
    const results = await toolResults(id);
    expect(results[0]).toMatchObject({ toolName: 'write_file' });
    expect(results[0]!.content).toMatch(/^ERROR: /);
    expect(git(repo, 'diff', '--name-only', `main...redline/${id}`).trim()).toBe('docs/quickstart.mdx');
  });

  it('after the base branch moves, a follow-up PR shows only the agent’s change', async () => {
    s.model.push(
      call('edit_file', { path: 'guides/start.mdx', old_string: 'first.', new_string: 'first, please.' }),
      finish('Be polite', 'Adds please.'),
    );
    const id = (await s.api('POST', 'job', { prompt: 'Be polite' })).json().id;
    await s.waitForJob(id);
    // Someone commits to main meanwhile.
    writeFileSync(path.join(repo, 'docs', 'upstream.mdx'), '---\ntitle: Upstream\n---\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'upstream page');
    s.model.push(
      call('edit_file', { path: 'guides/start.mdx', old_string: 'please.', new_string: 'please, thanks.' }),
      finish('Be polite twice', 'Adds thanks.'),
    );
    await s.api('POST', `job/${id}/message`, { prompt: 'Thank them too' });
    const job = await s.waitForJob(id, (j) => j.status !== 'active');
    expect(job.checks).toEqual([]);
    const pr = await s.runtime.database.db
      .selectFrom('pull_requests')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(pr.diff).toContain('please, thanks.');
    expect(pr.diff).not.toContain('upstream.mdx');
  });
});

describe('repository problems', () => {
  it('a missing base branch or a folder that is not a repository: repository_not_found, with what to fix', async () => {
    const repo = repoFrom(FIXTURE);
    const s = await startAgentServer('sqlite', { repository: repo });
    try {
      const missingRef = await s.runtime.projects.create({
        name: 'Missing ref',
        repository: repo,
        ref: 'release-9',
      });
      const notRepo = await s.runtime.projects.create({
        name: 'Not a repo',
        repository: mkdtempSync(path.join(tmpdir(), 'plain-')),
      });
      for (const [project, expected] of [
        [missingRef, 'release-9'],
        [notRepo, 'not found'],
      ] as const) {
        const { key } = await s.runtime.keys.create(project.id);
        const res = await s.inject({
          method: 'POST',
          url: `/v2/agent/${project.id}/job`,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: '{"prompt":"Anything"}',
        });
        const id = res.json().id;
        let job: { status: string; error: { code: string; message: string } | null } | undefined;
        for (let i = 0; i < 200 && job?.status !== 'failed'; i++) {
          await new Promise((r) => setTimeout(r, 50));
          job = (
            await s.inject({
              method: 'GET',
              url: `/v2/agent/${project.id}/job/${id}`,
              headers: { authorization: `Bearer ${key}` },
            })
          ).json();
        }
        expect(job!.error!.code).toBe('repository_not_found');
        expect(job!.error!.message).toContain(expected);
      }
    } finally {
      await s.close();
    }
  });
});
