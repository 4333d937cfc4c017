import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, git, repoFrom, startAgentServer } from '../support/agent.js';
import type { AgentTestServer } from '../support/agent.js';
import { call, finish } from '../support/scripted-model.js';

const edit = (to: string) => [
  call('edit_file', {
    path: 'quickstart.mdx',
    old_string: 'Run `acme init` in your project.',
    new_string: to,
  }),
  finish('Reword the install step', `Now says: ${to}`),
];

// The real provider clients (AI SDK) against the scripted model, over both protocols and both modes.
for (const provider of ['openai-compatible', 'openai', 'anthropic'] as const) {
  for (const stream of [false, true]) {
    describe(`provider ${provider}, ${stream ? 'streaming' : 'not streaming'}`, () => {
      let s: AgentTestServer;
      let repo: string;
      beforeAll(async () => {
        repo = repoFrom(FIXTURE);
        s = await startAgentServer('sqlite', {
          repository: repo,
          provider,
          env: { REDLINE_MODEL_STREAM: String(stream) },
        });
      });
      afterAll(async () => s?.close());

      it('runs a job to a PR, and no provider key is stored, logged or published', async () => {
        const text = `Run \`acme init\` once, in your project root (${provider}).`;
        s.model.push(
          {
            text: 'Let me read the page first.',
            toolCalls: [{ name: 'read_file', args: { path: 'quickstart.mdx' } }],
          },
          ...edit(text),
        );
        const id = (await s.api('POST', 'job', { prompt: 'Reword the install step' })).json().id;
        const job = await s.waitForJob(id);
        expect(job.error).toBeNull();
        expect(job.status).toBe('completed');
        expect(git(repo, 'diff', `main...redline/${id}`)).toContain(`+${text}`);
        const req = s.model.requests.at(-1)!;
        expect(req.protocol).toBe(provider === 'anthropic' ? 'anthropic' : 'openai');
        expect(Boolean(req.body.stream)).toBe(stream);

        // The key reached the model server (so it was really used) and nowhere else.
        const key =
          provider === 'anthropic'
            ? 'sk-ant-test-secret-0000'
            : provider === 'openai'
              ? 'sk-openai-test-secret-0000'
              : 'sk-compat-test-secret-0000';
        expect(JSON.stringify(req.headers)).toContain(key);
        const db = s.runtime.database.db;
        const stored = JSON.stringify([
          await db.selectFrom('messages').selectAll().execute(),
          await db.selectFrom('jobs').selectAll().execute(),
          await db.selectFrom('pull_requests').selectAll().execute(),
          await db.selectFrom('runs').selectAll().execute(),
        ]);
        expect(stored).not.toContain(key);
        expect(s.logs.join('')).not.toContain(key);
        expect(s.logs.join('')).not.toContain(s.key);
        const page = await s.inject({ method: 'GET', url: new URL(job.prLink!).pathname });
        expect(page.body).not.toContain(key);
      });
    });
  }
}

describe('model failures', () => {
  let s: AgentTestServer;
  beforeAll(async () => {
    s = await startAgentServer('sqlite', {
      repository: repoFrom(FIXTURE),
      env: { REDLINE_MODEL_MAX_RETRIES: '2', REDLINE_MODEL_TIMEOUT_SECONDS: '0.5' },
    });
  });
  afterAll(async () => s?.close());

  const fail = async (step: Parameters<AgentTestServer['model']['push']>[0]) => {
    const before = s.model.requests.length;
    s.model.push(step, step, step);
    const id = (await s.api('POST', 'job', { prompt: 'Anything' })).json().id;
    const job = await s.waitForJob(id);
    return { job, calls: s.model.requests.length - before };
  };

  it('500: retried, then model_unavailable', async () => {
    const { job, calls } = await fail({ status: 500 });
    expect(calls).toBe(3);
    expect(job.status).toBe('failed');
    expect(job.error!.code).toBe('model_unavailable');
    expect(job.error!.message).toContain('HTTP 500 (scripted failure) after 3 attempts');
  });

  it('429: retried (honouring Retry-After), then model_unavailable', async () => {
    const { job, calls } = await fail({
      status: 429,
      headers: { 'retry-after': '0' },
      body: '{"error":{"message":"slow down","type":"rate_limit"}}',
    });
    expect(calls).toBe(3);
    expect(job.error!.code).toBe('model_unavailable');
    expect(job.error!.message).toContain('HTTP 429');
  });

  it('a hung model server: each call times out, is retried, then model_unavailable', async () => {
    const { job, calls } = await fail({ hang: true });
    expect(calls).toBe(3);
    expect(job.error!.code).toBe('model_unavailable');
    expect(job.error!.message).toContain('no answer in time');
  });

  it('a transient failure is retried and the job still completes', async () => {
    s.model.push({ status: 503 }, ...edit('Run `acme init`.'));
    const id = (await s.api('POST', 'job', { prompt: 'Shorten the install step' })).json().id;
    const job = await s.waitForJob(id);
    expect(job.status).toBe('completed');
    expect(job.prLink).not.toBeNull();
  });

  it('a refused request (401) is not retried', async () => {
    const before = s.model.requests.length;
    // Providers echo part of a refused key; the job's message keeps what they said, not the key.
    s.model.push({
      status: 401,
      body: '{"error":{"message":"Incorrect API key provided: sk-compat-test-secret-0000.","type":"auth"}}',
    });
    const id = (await s.api('POST', 'job', { prompt: 'Anything' })).json().id;
    const job = await s.waitForJob(id);
    expect(s.model.requests.length - before).toBe(1);
    expect(job.error).toMatchObject({ code: 'model_unavailable' });
    expect(job.error!.message).toContain('HTTP 401 (Incorrect API key provided: [redacted].)');
    expect(job.error!.message).not.toContain('sk-compat');
  });
});
