import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { freePort, redline, runRedline, waitUntil } from '../support/processes.js';
import type { Proc } from '../support/processes.js';
import { makeDocsRepo } from '../support/repos.js';
import { ScriptedModel, finish } from '../support/scripted-model.js';

// The README's path for a newcomer, with real processes: CLI for the project and key, curl-like
// HTTP for jobs, and a server restarted while runs are queued.
describeEachDialect('server restarted with queued runs', (dialect) => {
  let db: TestDatabase;
  const procs: Proc[] = [];
  const models: ScriptedModel[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    for (const m of models) await m.close();
    await db?.drop();
  });

  it('loses none of them: every job runs once the server is back', async () => {
    const port = await freePort();
    const model = await new ScriptedModel().start();
    models.push(model);
    const env = {
      ...db.env,
      REDLINE_PORT: String(port),
      REDLINE_MODEL: 'openai-compatible:llama3.2',
      REDLINE_OPENAI_COMPATIBLE_URL: model.url,
    };
    const created = await runRedline(
      ['project', 'create', '--name', 'Docs', '--repository', makeDocsRepo(), '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const project = JSON.parse(created.output);
    const keyOut = await runRedline(['key', 'create', '--project', project.id, '--json'], env);
    expect(keyOut.code).toBe(0);
    const { key } = JSON.parse(keyOut.output);
    const base = `http://127.0.0.1:${port}/v2/agent/${project.id}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const apiOnly = redline(['serve', '--no-worker'], env);
    procs.push(apiOnly);
    await apiOnly.waitFor(/Redline listening/);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/job`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: `p${i}` }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    apiOnly.child.kill('SIGTERM');
    expect((await apiOnly.exited).code).toBe(0);

    for (let i = 0; i < ids.length; i++) model.push(finish('Nothing to do', 'No change was needed.'));
    const server = redline(['serve'], env);
    procs.push(server);
    await server.waitFor(/Redline listening/);
    const jobs = await waitUntil(async () => {
      const res = await fetch(`${base}/jobs`, { headers });
      const body = (await res.json()) as {
        jobs: { id: string; status: string; error: { code: string } | null }[];
      };
      return body.jobs.every((j) => j.status !== 'active') && body.jobs;
    }, 'every job to end');
    expect(jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    for (const j of jobs) expect(j).toMatchObject({ status: 'completed', error: null, prLink: null });
    // Each queued job reached the model exactly once.
    expect(model.requests).toHaveLength(ids.length);
    expect(server.output()).not.toContain(key);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });
});
