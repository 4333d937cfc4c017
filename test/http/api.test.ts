import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

describeEachDialect('v2 agent job API', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  it('creates a job: 201, the seven fields, and a Location that answers', async () => {
    const res = await s.api('POST', 'job', { prompt: 'Document the new --since flag' });
    expect(res.statusCode).toBe(201);
    const job = res.json();
    expect(Object.keys(job)).toEqual(
      expect.arrayContaining(['id', 'status', 'source', 'model', 'prLink', 'createdAt', 'archivedAt']),
    );
    expect(job).toMatchObject({
      status: 'active',
      source: { repository: s.project.repository, ref: 'main' },
      model: 'openai-compatible:test-model',
      prLink: null,
      archivedAt: null,
      error: null,
    });
    expect(job.id).toMatch(/^job_[0-9A-Z]{26}$/);
    expect(job.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers.location).toBe(`http://redline.test/v2/agent/${s.project.id}/job/${job.id}`);
    const got = await s.inject({
      method: 'GET',
      url: new URL(String(res.headers.location)).pathname,
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(job);
  });

  it('records the prompt in the conversation', async () => {
    const job = (await s.api('POST', 'job', { prompt: 'Fix the typo on the quickstart' })).json();
    const res = await s.api('GET', `job/${job.id}/messages`);
    expect(res.statusCode).toBe(200);
    expect(res.json().messages).toEqual([
      expect.objectContaining({ role: 'user', content: 'Fix the typo on the quickstart' }),
    ]);
  });

  it('follows up: the job is active again and the conversation has both prompts, in order', async () => {
    const job = (await s.api('POST', 'job', { prompt: 'first' })).json();
    const res = await s.api('POST', `job/${job.id}/message`, { prompt: 'second' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: job.id, status: 'active' });
    const messages = (await s.api('GET', `job/${job.id}/messages`)).json().messages;
    expect(messages.map((m: { content: string }) => m.content)).toEqual(['first', 'second']);
    expect(new Set(messages.map((m: { runId: string }) => m.runId)).size).toBe(2);
  });

  it('archives from any state; archived jobs take no messages (409) and archiving again changes nothing', async () => {
    const job = (await s.api('POST', 'job', { prompt: 'to archive' })).json();
    const archived = await s.api('POST', `job/${job.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ status: 'archived' });
    expect(archived.json().archivedAt).toMatch(/Z$/);
    const runs = await s.runtime.database.db
      .selectFrom('runs')
      .select('status')
      .where('job_id', '=', job.id)
      .execute();
    expect(runs).toEqual([{ status: 'cancelled' }]);

    const before = await s.counts();
    const msg = await s.api('POST', `job/${job.id}/message`, { prompt: 'more' });
    expect(msg.statusCode).toBe(409);
    expect(msg.json().code).toBe('conflict');
    expect(await s.counts()).toEqual(before);

    const again = await s.api('POST', `job/${job.id}/archive`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(archived.json());
  });

  it('lists newest first with cursor pagination and a status filter', async () => {
    const other = await startTestServer(dialect);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await other.api('POST', 'job', { prompt: `job ${i}` })).json().id);
      await other.api('POST', `job/${ids[1]}/archive`);
      const page1 = (await other.api('GET', 'jobs?limit=2')).json();
      expect(page1.jobs.map((j: { id: string }) => j.id)).toEqual([ids[4], ids[3]]);
      const page2 = (await other.api('GET', `jobs?limit=2&cursor=${page1.nextCursor}`)).json();
      expect(page2.jobs.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
      const page3 = (await other.api('GET', `jobs?limit=2&cursor=${page2.nextCursor}`)).json();
      expect(page3).toEqual({ jobs: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
      const archived = (await other.api('GET', 'jobs?status=archived')).json();
      expect(archived.jobs.map((j: { id: string }) => j.id)).toEqual([ids[1]]);
      expect((await other.api('GET', 'jobs')).json().jobs).toHaveLength(5);
    } finally {
      await other.close();
    }
  });

  it('replays an Idempotency-Key with the same body and refuses it with another body', async () => {
    const headers = { 'idempotency-key': 'deploy-4711' };
    const first = await s.api('POST', 'job', { prompt: 'once' }, headers);
    expect(first.statusCode).toBe(201);
    const before = await s.counts();
    const again = await s.api('POST', 'job', { prompt: 'once' }, headers);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    const other = await s.api('POST', 'job', { prompt: 'twice' }, headers);
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('conflict');
    expect(await s.counts()).toEqual(before);
  });

  it('treats an Idempotency-Key reused on another job as a different request (409), never a replay', async () => {
    const a = (await s.api('POST', 'job', { prompt: 'a' })).json().id;
    const b = (await s.api('POST', 'job', { prompt: 'b' })).json().id;
    const headers = { 'idempotency-key': 'follow-up-1' };
    const ra = await s.api('POST', `job/${a}/message`, { prompt: 'same' }, headers);
    const rb = await s.api('POST', `job/${b}/message`, { prompt: 'same' }, headers);
    expect(ra.statusCode).toBe(200);
    expect(ra.json().id).toBe(a);
    expect(rb.statusCode).toBe(409);
    expect(rb.json().code).toBe('conflict');
  });

  it('serves the OpenAPI 3.1 description without a key, generated from the request schemas', async () => {
    const res = await s.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/v2/agent/{projectId}/job',
        '/v2/agent/{projectId}/job/{id}',
        '/v2/agent/{projectId}/job/{id}/archive',
        '/v2/agent/{projectId}/job/{id}/message',
        '/v2/agent/{projectId}/job/{id}/messages',
        '/v2/agent/{projectId}/jobs',
      ].sort(),
    );
    const create = doc.components.schemas.CreateJobRequestInput ?? doc.components.schemas.CreateJobRequest;
    expect(create.required).toEqual(['prompt']);
    expect(create.additionalProperties).toBe(false);
    expect(doc.paths['/v2/agent/{projectId}/job'].post.responses['201']).toBeDefined();
  });

  it('answers /healthz and /readyz without a key', async () => {
    expect((await s.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await s.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('tracks lastUsedAt and logs with a request id but never the key', async () => {
    const res = await s.api('GET', 'jobs', undefined, { 'x-request-id': 'trace-abc-123' });
    expect(res.headers['x-request-id']).toBe('trace-abc-123');
    const keys = await s.runtime.keys.list(s.project.id);
    expect(keys[0]!.lastUsedAt).not.toBeNull();
    const all = s.logs.join('');
    expect(all).toContain('trace-abc-123');
    expect(all).not.toContain(s.key);
    expect(all).not.toContain(s.key.slice(4, 36));
  });
});

describeEachDialect('rate limit', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, { env: { REDLINE_RATE_LIMIT_PER_HOUR: '3' } });
  });
  afterAll(async () => s?.close());

  it('allows the hourly budget of creates and messages, then 429 with Retry-After and nothing stored', async () => {
    const a = await s.api('POST', 'job', { prompt: 'one' });
    expect(a.statusCode).toBe(201);
    expect(a.headers['ratelimit-limit']).toBe('3');
    expect(a.headers['ratelimit-remaining']).toBe('2');
    const id = a.json().id;
    expect((await s.api('POST', `job/${id}/message`, { prompt: 'two' })).statusCode).toBe(200);
    expect((await s.api('POST', 'job', { prompt: 'three' })).statusCode).toBe(201);
    const before = await s.counts();
    const limited = await s.api('POST', 'job', { prompt: 'four' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    const afterLimited = await s.counts();
    expect({ ...afterLimited, rate_limits: 0 }).toEqual({ ...before, rate_limits: 0 });
    const msg = await s.api('POST', `job/${id}/message`, { prompt: 'five' });
    expect(msg.statusCode).toBe(429);
    expect(msg.json().code).toBe('rate_limited');
    // Requests that fail anyway do not spend budget: the counter does not move for them.
    const hits = async () =>
      (await s.runtime.database.db.selectFrom('rate_limits').select('hits').executeTakeFirstOrThrow()).hits;
    const hitsBefore = await hits();
    await s.api('POST', `job/${id}/archive`);
    expect((await s.api('POST', `job/${id}/message`, { prompt: 'archived' })).statusCode).toBe(409);
    expect(
      (await s.api('POST', 'job/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/message', { prompt: 'x' })).statusCode,
    ).toBe(404);
    expect(await hits()).toBe(hitsBefore);
    // Reads are not limited.
    expect((await s.api('GET', `job/${id}`)).statusCode).toBe(200);
  });
});
