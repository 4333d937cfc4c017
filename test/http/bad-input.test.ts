import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key-format.js';
import { describeEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/server.js';
import type { TestServer } from '../support/server.js';

interface Case {
  name: string;
  request: () => Promise<{
    statusCode: number;
    headers: Record<string, unknown>;
    json(): { error: string; code: string };
  }>;
  status: number;
  code: string;
}

describeEachDialect('bad input: clear error, nothing stored', (dialect) => {
  let s: TestServer;
  let jobId: string;
  let archivedId: string;
  let revokedKey: string;
  let otherProjectKey: string;
  let otherProjectId: string;

  beforeAll(async () => {
    s = await startTestServer(dialect, {
      env: { REDLINE_MAX_PROMPT_CHARS: '100', REDLINE_MAX_BODY_BYTES: '2048' },
    });
    jobId = (await s.api('POST', 'job', { prompt: 'existing job' })).json().id;
    archivedId = (await s.api('POST', 'job', { prompt: 'archived job' })).json().id;
    await s.api('POST', `job/${archivedId}/archive`);
    const revoked = await s.runtime.keys.create(s.project.id, 'revoked');
    await s.runtime.keys.revoke(revoked.id);
    revokedKey = revoked.key;
    const other = await s.runtime.projects.create({ name: 'Other', repository: s.project.repository });
    otherProjectId = other.id;
    otherProjectKey = (await s.runtime.keys.create(other.id)).key;
    await s.api('POST', 'job', { prompt: 'x' }, { 'idempotency-key': 'used-key' });
  });
  afterAll(async () => s?.close());

  const create = (payload: string | undefined, headers: Record<string, string> = {}) =>
    s.inject({
      method: 'POST',
      url: `/v2/agent/${s.project.id}/job`,
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', ...headers },
      payload,
    });
  const message = (payload: string) =>
    s.inject({
      method: 'POST',
      url: `/v2/agent/${s.project.id}/job/${jobId}/message`,
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      payload,
    });
  const withAuth = (authorization: string | undefined, projectId = s.project.id) =>
    s.inject({
      method: 'POST',
      url: `/v2/agent/${projectId}/job`,
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      payload: JSON.stringify({ prompt: 'hello' }),
    });
  const get = (path: string) =>
    s.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${s.key}` } });

  const cases: Case[] = [
    { name: 'no key', request: () => withAuth(undefined), status: 401, code: 'unauthorized' },
    {
      name: 'not a Bearer header',
      request: () => withAuth(`Basic ${s.key}`),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'garbled key',
      request: () => withAuth('Bearer %%%not-a-key%%%'),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'wrong prefix',
      request: () => withAuth(`Bearer ${s.key.replace('rdl_', 'sk__')}`),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'bad checksum',
      request: () => withAuth(`Bearer ${s.key.slice(0, -1)}${s.key.endsWith('0') ? '1' : '0'}`),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'unknown key',
      request: () => withAuth(`Bearer ${generateApiKey()}`),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'revoked key',
      request: () => withAuth(`Bearer ${revokedKey}`),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: "another project's key",
      request: () => withAuth(`Bearer ${otherProjectKey}`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a valid key on an unknown project',
      request: () => withAuth(`Bearer ${s.key}`, 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      status: 404,
      code: 'not_found',
    },
    { name: 'malformed JSON', request: () => create('{"prompt": "x"'), status: 400, code: 'invalid_request' },
    { name: 'JSON array', request: () => create('["prompt"]'), status: 400, code: 'invalid_request' },
    { name: 'JSON string', request: () => create('"prompt"'), status: 400, code: 'invalid_request' },
    { name: 'JSON null', request: () => create('null'), status: 400, code: 'invalid_request' },
    { name: 'no body', request: () => create(undefined), status: 400, code: 'invalid_request' },
    { name: 'missing prompt', request: () => create('{}'), status: 400, code: 'invalid_request' },
    { name: 'empty prompt', request: () => create('{"prompt":""}'), status: 400, code: 'invalid_request' },
    {
      name: 'whitespace-only prompt',
      request: () => create('{"prompt":"  \\n\\t "}'),
      status: 400,
      code: 'invalid_request',
    },
    { name: 'number prompt', request: () => create('{"prompt":42}'), status: 400, code: 'invalid_request' },
    { name: 'null prompt', request: () => create('{"prompt":null}'), status: 400, code: 'invalid_request' },
    {
      name: 'unknown field',
      request: () => create('{"prompt":"x","priority":"high"}'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'non-string model',
      request: () => create('{"prompt":"x","model":7}'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'prompt over the limit',
      request: () => create(JSON.stringify({ prompt: 'x'.repeat(101) })),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'body over the limit',
      request: () => create(JSON.stringify({ prompt: 'x', pad: 'y'.repeat(4096) })),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'text/plain body',
      request: () => create('{"prompt":"x"}', { 'content-type': 'text/plain' }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'form body',
      request: () => create('prompt=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'model with an unknown provider',
      request: () => create('{"prompt":"x","model":"acme:big"}'),
      status: 400,
      code: 'model_not_configured',
    },
    {
      name: 'model the project does not allow',
      request: () => create('{"prompt":"x","model":"openai-compatible:other"}'),
      status: 400,
      code: 'model_not_configured',
    },
    { name: 'message: malformed JSON', request: () => message('{'), status: 400, code: 'invalid_request' },
    {
      name: 'message: empty prompt',
      request: () => message('{"prompt":" "}'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'message: unknown field',
      request: () => message('{"prompt":"x","model":"openai:gpt"}'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'message: prompt over the limit',
      request: () => message(JSON.stringify({ prompt: 'é'.repeat(101) })),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'message to an archived job',
      request: () => s.api('POST', `job/${archivedId}/message`, { prompt: 'more' }),
      status: 409,
      code: 'conflict',
    },
    {
      name: 'message to an unknown job',
      request: () => s.api('POST', `job/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/message`, { prompt: 'more' }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'Idempotency-Key reused with another body',
      request: () => s.api('POST', 'job', { prompt: 'y' }, { 'idempotency-key': 'used-key' }),
      status: 409,
      code: 'conflict',
    },
    {
      name: 'unknown job id',
      request: () => get(`/v2/agent/${s.project.id}/job/job_01ARZ3NDEKTSV4RRFFQ69G5FAV`),
      status: 404,
      code: 'not_found',
    },
    {
      name: "another project's job id",
      request: async () => {
        const otherJob = await s.inject({
          method: 'GET',
          url: `/v2/agent/${otherProjectId}/jobs`,
          headers: { authorization: `Bearer ${otherProjectKey}` },
        });
        expect(otherJob.statusCode).toBe(200);
        return get(`/v2/agent/${otherProjectId}/job/${jobId}`);
      },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'very long job id',
      request: () => get(`/v2/agent/${s.project.id}/job/job_${'A'.repeat(5000)}`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'very long project id',
      request: () => get(`/v2/agent/prj_${'A'.repeat(5000)}/jobs`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unicode job id',
      request: () => get(`/v2/agent/${s.project.id}/job/${encodeURIComponent('jöb_✓💥')}`),
      status: 404,
      code: 'not_found',
    },
    {
      name: '.. as job id',
      request: () => get(`/v2/agent/${s.project.id}/job/%2E%2E`),
      status: 404,
      code: 'not_found',
    },
    {
      name: '.. path segments',
      request: () => get(`/v2/agent/${s.project.id}/job/../../../${s.project.id}/jobs`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'archive of an unknown job',
      request: () => s.api('POST', `job/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/archive`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'messages of an unknown job',
      request: () => get(`/v2/agent/${s.project.id}/job/nope/messages`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'list with limit=0',
      request: () => s.api('GET', 'jobs?limit=0'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with limit=1000',
      request: () => s.api('GET', 'jobs?limit=1000'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with limit=abc',
      request: () => s.api('GET', 'jobs?limit=abc'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with a garbage cursor',
      request: () => s.api('GET', 'jobs?cursor=%%%garbage'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with a well-encoded cursor that is not ours',
      request: () => s.api('GET', `jobs?cursor=${Buffer.from('hello').toString('base64url')}`),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with an unknown status',
      request: () => s.api('GET', 'jobs?status=running'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'list with an unknown parameter',
      request: () => s.api('GET', 'jobs?sort=asc'),
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'unknown /v2 route',
      request: () => get(`/v2/agent/${s.project.id}/nothing`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unknown /v2 route without a key',
      request: () => s.inject({ method: 'GET', url: `/v2/agent/${s.project.id}/nothing` }),
      status: 401,
      code: 'unauthorized',
    },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.status} ${c.code}`, async () => {
      const before = await s.counts();
      const res = await c.request();
      expect(res.statusCode).toBe(c.status);
      const body = res.json();
      expect(body.code).toBe(c.code);
      expect(typeof body.error).toBe('string');
      expect(body.error.length).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toMatch(/at .+\.(ts|js):\d+/);
      expect(JSON.stringify(body)).not.toContain(s.key);
      if (c.status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      const after = await s.counts();
      // The rate-limit counter is the one thing a refused request may touch; no request here counts.
      expect(after).toEqual(before);
      const job = (await s.api('GET', `job/${jobId}`)).json();
      expect(job.status).toBe('active');
    });
  }

  it('no provider set-up for the default model → 400 model_not_configured naming what is missing, nothing stored', async () => {
    const bare = await startTestServer(dialect, { env: { REDLINE_OPENAI_COMPATIBLE_URL: '' } });
    try {
      const before = await bare.counts();
      const res = await bare.api('POST', 'job', { prompt: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('model_not_configured');
      expect(res.json().error).toContain('REDLINE_OPENAI_COMPATIBLE_URL');
      expect(await bare.counts()).toEqual(before);
    } finally {
      await bare.close();
    }
  });

  it('no model at all → 400 model_not_configured', async () => {
    const bare = await startTestServer(dialect, { env: { REDLINE_MODEL: '' } });
    try {
      const res = await bare.api('POST', 'job', { prompt: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('model_not_configured');
      expect(res.json().error).toContain('REDLINE_MODEL');
    } finally {
      await bare.close();
    }
  });
});
