import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURE, git, repoFrom } from '../support/agent.js';
import { describeEachDialect } from '../support/databases.js';
import { spawnTs, waitUntil } from '../support/processes.js';
import type { Proc } from '../support/processes.js';
import { ScriptedModel, call, finish } from '../support/scripted-model.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

describeEachDialect('a worker killed after the push, before the PR', (dialect) => {
  let s: TestServer;
  let model: ScriptedModel;
  let repo: string;
  const procs: Proc[] = [];
  beforeAll(async () => {
    model = await new ScriptedModel().start();
    repo = repoFrom(FIXTURE);
    s = await startTestServer(dialect, { repository: repo });
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await s?.close();
    await model?.close();
  });

  it('is re-run, and the re-run opens exactly one PR', async () => {
    const flag = path.join(s.database.dataDir, 'crashed');
    const env = {
      ...s.database.env,
      REDLINE_LEASE_SECONDS: '1',
      REDLINE_MODEL: 'openai-compatible:scripted',
      REDLINE_OPENAI_COMPATIBLE_URL: model.url,
      REDLINE_PUBLIC_URL: 'http://redline.test',
      REDLINE_TEST_CRASH_FLAG: flag,
    };
    const edit = call('edit_file', {
      path: 'quickstart.mdx',
      old_string: '## Install\n',
      new_string: '## Install Acme\n',
    });
    model.push(edit, finish('Rename the heading', 'Renames it.'));
    const id = (await s.api('POST', 'job', { prompt: 'Rename the install heading' })).json().id;

    const first = spawnTs('test/support/agent-worker-process.ts', [], env);
    procs.push(first);
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(existsSync(flag)).toBe(true);
    // The branch was pushed before the crash; no PR exists yet.
    expect(git(repo, 'diff', `main...redline/${id}`)).toContain('+## Install Acme');
    expect(await s.runtime.database.db.selectFrom('pull_requests').selectAll().execute()).toHaveLength(0);

    const second = spawnTs('test/support/agent-worker-process.ts', [], env);
    procs.push(second);
    const job = await waitUntil(async () => {
      const j = (await s.api('GET', `job/${id}`)).json();
      return j.status !== 'active' && j;
    }, 'the re-run to finish');
    expect(job.status).toBe('completed');
    const prs = await s.runtime.database.db.selectFrom('pull_requests').selectAll().execute();
    expect(prs).toHaveLength(1);
    expect(job.prLink).toBe(`http://redline.test/projects/${s.project.id}/pulls/${prs[0]!.number}`);
    expect(prs[0]!.diff).toContain('+## Install Acme');
    expect(git(repo, 'rev-list', '--count', `main..redline/${id}`).trim()).toBe('1');
    const run = await s.runtime.database.db
      .selectFrom('runs')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(run.attempts).toBe(2);
    // The re-run recognised its own commit on the branch and did not ask the model again.
    expect(model.requests).toHaveLength(2);
    expect(job.summary).toBe('Renames it.');
    expect(prs[0]!.title).toBe('Rename the heading');
    const messages = (await s.api('GET', `job/${id}/messages`)).json().messages as {
      role: string;
      data: { final?: boolean } | null;
    }[];
    expect(messages.filter((m) => m.data?.final)).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
