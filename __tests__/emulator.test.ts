import { afterEach, describe, expect, it } from '@jest/globals';
import { checkRequest, checkResponse, matchRoute } from '../emulators/openapi.js';
import {
  DEFAULT_API_KEY,
  startEmulator,
  type AgentJobLike,
  type Emulator,
  type EmulatorOptions,
} from '../emulators/server.js';

const running: Emulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options?: EmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

const auth = { authorization: `Bearer ${DEFAULT_API_KEY}` };
const jsonAuth = { ...auth, 'content-type': 'application/json' };

function create(emulator: Emulator, prompt: unknown = 'Document the --since flag', project = 'acme') {
  return fetch(`${emulator.url}/v2/agent/${project}/job`, {
    method: 'POST',
    headers: jsonAuth,
    body: JSON.stringify({ prompt }),
  });
}

function get(emulator: Emulator, id: string, project = 'acme', headers: Record<string, string> = auth) {
  return fetch(`${emulator.url}/v2/agent/${project}/job/${encodeURIComponent(id)}`, { headers });
}

async function job(response: Response): Promise<AgentJobLike> {
  return (await response.json()) as AgentJobLike;
}

describe('default play', () => {
  it('creates a job that is active for two polls, then completed with a pull request link', async () => {
    const emulator = await start();

    const created = await create(emulator);
    expect(created.status).toBe(201);
    const { id, status, prLink } = await job(created);
    expect(id).toMatch(/^job_[0-9a-f]{12}$/);
    expect([status, prLink]).toEqual(['active', null]);

    const statuses = [];
    for (let poll = 0; poll < 4; poll += 1) {
      const response = await get(emulator, id);
      expect(response.status).toBe(200);
      statuses.push(await job(response));
    }
    expect(statuses.map((entry) => entry.status)).toEqual(['active', 'active', 'completed', 'completed']);
    expect(statuses[2]?.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    expect(statuses[3]).toEqual(statuses[2]);

    expect(emulator.count('create')).toBe(1);
    expect(emulator.count('get')).toBe(4);
    expect(emulator.requests[0]).toMatchObject({
      route: 'create',
      method: 'POST',
      path: '/v2/agent/acme/job',
      projectId: 'acme',
      json: { prompt: 'Document the --since flag' },
    });
    expect(emulator.requests[1]).toMatchObject({ route: 'get', projectId: 'acme', jobId: id });
    expect(emulator.jobs.get(id)?.status).toBe('completed');
    expect(emulator.violations).toEqual([]);
  });

  it('plays the configured final status', async () => {
    const failed = await start({ activePolls: 0, final: { status: 'failed' } });
    const failedJob = await job(await create(failed));
    expect(await job(await get(failed, failedJob.id))).toMatchObject({ status: 'failed', prLink: null });

    const archived = await start({ activePolls: 0, final: { status: 'archived' } });
    const archivedJob = await job(await create(archived));
    const seen = await job(await get(archived, archivedJob.id));
    expect(seen.status).toBe('archived');
    expect(Date.parse(seen.archivedAt ?? '')).not.toBeNaN();

    expect([...failed.violations, ...archived.violations]).toEqual([]);
  });

  it('with `pass`, a job works that long on the given clock after its create and after each follow-up', async () => {
    let now = 1_000;
    const emulator = await start({ pass: { ms: 8 * 60_000, now: () => now } });
    const { id } = await job(await create(emulator));
    now += 8 * 60_000 - 1;
    expect((await job(await get(emulator, id))).status).toBe('active');
    now += 1;
    expect((await job(await get(emulator, id))).status).toBe('completed');
    await fetch(`${emulator.url}/v2/agent/acme/job/${id}/message`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt: 'Also update the changelog' }),
    });
    now += 60_000;
    expect((await job(await get(emulator, id))).status).toBe('active');
    now += 7 * 60_000;
    expect((await job(await get(emulator, id))).status).toBe('completed');
    expect(emulator.violations).toEqual([]);
  });

  it('takes a follow-up message: the job is active again, then completes with the same link', async () => {
    const emulator = await start({ activePolls: 0 });
    const { id } = await job(await create(emulator));
    const first = await job(await get(emulator, id));
    expect(first.status).toBe('completed');

    const sent = await fetch(`${emulator.url}/v2/agent/acme/job/${id}/message`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt: 'Also update the changelog' }),
    });
    expect(sent.status).toBe(200);
    expect(await job(sent)).toMatchObject({ id, status: 'active' });
    expect(await job(await get(emulator, id))).toMatchObject({ status: 'completed', prLink: first.prLink });
    expect(emulator.requests.find((request) => request.route === 'message')?.json).toEqual({
      prompt: 'Also update the changelog',
    });
    expect(emulator.violations).toEqual([]);
  });

  it('answers 404 for an unknown job, a job of another project, and an unknown project', async () => {
    const emulator = await start({ projects: ['acme'] });
    const { id } = await job(await create(emulator));

    for (const response of [await get(emulator, 'job_missing'), await get(emulator, id, 'other')]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'Job not found' });
    }
    const message = await fetch(`${emulator.url}/v2/agent/acme/job/job_missing/message`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(message.status).toBe(404);

    const unknownProject = await create(emulator, 'hi', 'nope');
    expect(unknownProject.status).toBe(404);
    expect(await unknownProject.json()).toEqual({ error: 'Project not found' });
    expect(emulator.jobs.size).toBe(1);
    expect(emulator.violations).toEqual([]);
  });
});

describe('follow-ups to finished jobs', () => {
  function message(emulator: Emulator, id: string, prompt = 'Also update the changelog') {
    return fetch(`${emulator.url}/v2/agent/acme/job/${encodeURIComponent(id)}/message`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt }),
    });
  }

  /** A job that has been read once with `activePolls: 0`, so it is stored as completed. */
  async function completedJob(emulator: Emulator): Promise<string> {
    const { id } = await job(await create(emulator));
    expect((await job(await get(emulator, id))).status).toBe('completed');
    return id;
  }

  const refuse400 = { status: 400, error: 'job is already completed' } as const;

  it('takes a message to an active job even when finished jobs refuse them', async () => {
    const emulator = await start({ finishedJobMessages: refuse400 });
    const { id } = await job(await create(emulator));
    const sent = await message(emulator, id);
    expect(sent.status).toBe(200);
    expect(await job(sent)).toMatchObject({ id, status: 'active' });
    expect(emulator.violations).toEqual([]);
  });

  it('refuses a message to a completed job with 400 and the error; the job stays completed', async () => {
    const emulator = await start({ activePolls: 0, finishedJobMessages: refuse400 });
    const id = await completedJob(emulator);
    const stored = { ...emulator.jobs.get(id) };

    const refused = await message(emulator, id);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'job is already completed' });

    expect(emulator.jobs.get(id)).toEqual(stored);
    expect(await job(await get(emulator, id))).toMatchObject({ status: 'completed', prLink: stored.prLink });
    expect(emulator.count('message')).toBe(1);
    expect(emulator.requests.find((request) => request.route === 'message')).toMatchObject({
      jobId: id,
      json: { prompt: 'Also update the changelog' },
    });
    expect(emulator.violations).toEqual([]);
  });

  it('refuses with 404 and the default error, for failed and archived jobs too', async () => {
    for (const status of ['completed', 'failed', 'archived']) {
      const emulator = await start({
        activePolls: 0,
        final: { status },
        finishedJobMessages: { status: 404 },
      });
      const { id } = await job(await create(emulator));
      expect((await job(await get(emulator, id))).status).toBe(status);
      const refused = await message(emulator, id);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({ error: 'job is not active' });
      expect(emulator.jobs.get(id)?.status).toBe(status);
      expect(emulator.violations).toEqual([]);
    }
  });

  it.each([409, 410, 422] as const)(
    'plays %d, which the spec does not list, without counting it as a violation',
    async (status) => {
      const emulator = await start({ activePolls: 0, finishedJobMessages: { status } });
      const id = await completedJob(emulator);
      const refused = await message(emulator, id);
      expect(refused.status).toBe(status);
      expect(await refused.json()).toEqual({ error: 'job is not active' });
      expect(emulator.jobs.get(id)?.status).toBe('completed');
      expect(emulator.violations).toEqual([]);
    },
  );

  it('lets a scripted reply come first', async () => {
    const emulator = await start({ activePolls: 0, finishedJobMessages: refuse400 });
    const id = await completedJob(emulator);
    emulator.script('message', { job: { note: 'taken' } });
    const sent = await message(emulator, id);
    expect(sent.status).toBe(200);
    expect(await job(sent)).toMatchObject({ id, status: 'active', note: 'taken' });
    expect(emulator.violations).toEqual([]);
  });

  it('takes a message to a completed job by default', async () => {
    for (const options of [{ activePolls: 0 }, { activePolls: 0, finishedJobMessages: 'accept' as const }]) {
      const emulator = await start(options);
      const id = await completedJob(emulator);
      const sent = await message(emulator, id);
      expect(sent.status).toBe(200);
      expect(await job(sent)).toMatchObject({ id, status: 'active' });
      expect(emulator.violations).toEqual([]);
    }
  });
});

describe('contract checks', () => {
  it('answers 401 to a wrong key (not a violation) and to a missing one (a violation)', async () => {
    const emulator = await start();
    const wrong = await get(emulator, 'job_x', 'acme', { authorization: 'Bearer mint_wrong' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'Invalid API key' });
    expect(emulator.violations).toEqual([]);

    const missing = await get(emulator, 'job_x', 'acme', {});
    expect(missing.status).toBe(401);
    expect(emulator.violations).toEqual([expect.stringContaining('Authorization header is missing')]);
    expect(emulator.count('get')).toBe(2);
  });

  it('answers 400 with a violation to an empty prompt, a body that is not JSON, or no content type', async () => {
    const emulator = await start();
    const empty = await create(emulator, '');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: expect.stringContaining('prompt') });

    const notJson = await fetch(`${emulator.url}/v2/agent/acme/job`, {
      method: 'POST',
      headers: jsonAuth,
      body: '{"prompt":',
    });
    expect(notJson.status).toBe(400);

    const noType = await fetch(`${emulator.url}/v2/agent/acme/job`, {
      method: 'POST',
      headers: auth,
      body: new Blob([JSON.stringify({ prompt: 'hi' })]),
    });
    expect(noType.status).toBe(400);

    expect(emulator.violations).toHaveLength(3);
    expect(emulator.violations[0]).toContain('body.prompt must be at least 1 character');
    expect(emulator.violations[1]).toContain('not valid JSON');
    expect(emulator.violations[2]).toContain('Content-Type');
    expect(emulator.jobs.size).toBe(0);
  });

  it('answers 404 to an unknown path and 405 to a method the spec does not list, both violations', async () => {
    const emulator = await start();
    const unknown = await fetch(`${emulator.url}/v2/agent/acme/jobs`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Not found' });

    const wrongMethod = await fetch(`${emulator.url}/v2/agent/acme/job`, { headers: auth });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');

    expect(emulator.requests.map((request) => request.route)).toEqual(['unknown', 'unknown']);
    expect(emulator.violations).toEqual([
      expect.stringContaining('no such path'),
      expect.stringContaining('method not allowed'),
    ]);
  });

  it('reads routes, requests and replies from the OpenAPI description', () => {
    expect(matchRoute('POST', '/gw/v2/agent/a%20b/job', '/gw/')).toEqual({
      route: 'create',
      projectId: 'a b',
    });
    expect(matchRoute('get', '/v2/agent/p/job/j%2F1', '')).toEqual({
      route: 'get',
      projectId: 'p',
      jobId: 'j/1',
    });
    expect(matchRoute('GET', '/v2/agent/p/job/j/message', '')).toBeUndefined();
    expect(matchRoute('POST', '/v2/agent/%zz/job', '')).toBeUndefined();

    const request = {
      method: 'POST',
      pathname: '/v2/agent/p/job',
      headers: jsonAuth,
      body: '{"prompt":"x"}',
    };
    expect(checkRequest(request)).toEqual([]);
    expect(checkRequest({ ...request, body: '{"prompt":7}' })).toEqual([
      expect.stringContaining('type string'),
    ]);
    expect(checkRequest({ ...request, headers: { ...jsonAuth, authorization: 'Basic abc' } })).toEqual([
      expect.stringContaining('Bearer'),
    ]);
    expect(checkRequest({ ...request, method: 'GET', pathname: '/v2/agent/p/job/j', body: 'x' })).toEqual([
      expect.stringContaining('request body not in the spec'),
    ]);

    const good = { id: 'j', status: 'completed', prLink: 'https://github.com/o/r/pull/1', archivedAt: null };
    expect(checkResponse('get', 200, good)).toEqual([]);
    expect(checkResponse('get', 201, good)).toEqual([expect.stringContaining('status 201')]);
    expect(checkResponse('get', 200, { ...good, status: 'done', prLink: 'not a url' })).toEqual([
      expect.stringContaining('body.status must be one of'),
      expect.stringContaining('body.prLink must be a uri'),
    ]);
    expect(checkResponse('create', 201, { ...good, createdAt: null })).toEqual([
      expect.stringContaining('createdAt must not be null'),
    ]);
  });
});

describe('a project over its quota (rateLimit)', () => {
  it('answers creates and messages 429 with the headers given, as many times as asked, within the spec', async () => {
    const emulator = await start({
      rateLimit: { headers: { 'Retry-After': '0', 'X-RateLimit-Reset': '1000000001' }, times: 2 },
    });
    for (let i = 0; i < 2; i++) {
      const limited = await create(emulator);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('0');
      expect(limited.headers.get('x-ratelimit-reset')).toBe('1000000001');
      expect(await limited.json()).toEqual({ error: 'Rate limit exceeded' });
    }
    expect(emulator.jobs.size).toBe(0);
    const created = await create(emulator);
    expect(created.status).toBe(201);
    expect(emulator.violations).toEqual([]);
  });

  it('limits follow-ups too, but never reads (the spec lists no 429 for them)', async () => {
    const emulator = await start({
      rateLimit: { headers: { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' } },
    });
    emulator.script('create', { job: { id: 'job_1' } });
    expect((await create(emulator)).status).toBe(201);
    const sent = await fetch(`${emulator.url}/v2/agent/acme/job/job_1/message`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt: 'more' }),
    });
    expect(sent.status).toBe(429);
    expect(sent.headers.get('retry-after')).toBe('Fri, 31 Dec 9999 23:59:59 GMT');
    expect((await get(emulator, 'job_1')).status).toBe(200);
    expect((await create(emulator)).status).toBe(429);
    expect(emulator.violations).toEqual([]);
  });
});

describe('scripted replies', () => {
  it('sends a scripted status, headers and error, then falls back to the default play', async () => {
    const emulator = await start();
    emulator.script('create', { status: 429, headers: { 'retry-after': '2' } });

    const limited = await create(emulator);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({ error: 'Rate limit exceeded' });
    expect(emulator.jobs.size).toBe(0);

    expect((await create(emulator)).status).toBe(201);
    expect(emulator.count('create')).toBe(2);
  });

  it('sends a raw body that is not JSON', async () => {
    const emulator = await start();
    emulator.script('get', {
      status: 502,
      raw: '<html>Bad gateway</html>',
      headers: { 'Content-Type': 'text/html' },
    });
    const response = await get(emulator, 'job_x');
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('<html>Bad gateway</html>');
  });

  it('merges a scripted job over the stored one and keeps it', async () => {
    const emulator = await start();
    const { id } = await job(await create(emulator));
    emulator.script('get', { job: { status: 'completed', prLink: null, extra: 1 } });

    expect(await job(await get(emulator, id))).toMatchObject({
      id,
      status: 'completed',
      prLink: null,
      extra: 1,
    });
    // The scripted status sticks: the default play only moves active jobs on.
    expect(await job(await get(emulator, id))).toMatchObject({ status: 'completed', prLink: null });
    expect(emulator.jobs.get(id)?.extra).toBe(1);
  });

  it('holds a reply (the client gives up first), delays one, and close() cuts the pending reply', async () => {
    const emulator = await start();
    emulator.script('get', { hold: true });
    // The client gives up once the emulator holds its request, not after a time: a loaded
    // machine may not have sent it yet after any time one could pick.
    const giveUp = new AbortController();
    const timedOut = fetch(`${emulator.url}/v2/agent/acme/job/job_x`, {
      headers: auth,
      signal: giveUp.signal,
    });
    await emulator.received('get', 1);
    giveUp.abort();
    await expect(timedOut).rejects.toThrow();

    emulator.script('get', { delayMs: 5_000 });
    const pending = get(emulator, 'job_x');
    await emulator.received('get', 2);
    await emulator.close();
    await expect(pending).rejects.toThrow();
  });

  it('answers late with the default reply when only a delay is scripted', async () => {
    const emulator = await start();
    emulator.script('create', { delayMs: 20 });
    expect((await create(emulator)).status).toBe(201);
    expect(emulator.jobs.size).toBe(1);
  });

  it('drops the connection before replying or halfway through the body', async () => {
    const emulator = await start();
    emulator.script('create', { drop: 'before-reply' });
    await expect(create(emulator)).rejects.toThrow();
    expect(emulator.jobs.size).toBe(0);

    const { id } = await job(await create(emulator));
    emulator.script('get', { drop: 'mid-body' });
    const cut = await get(emulator, id);
    expect(cut.status).toBe(200);
    await expect(cut.text()).rejects.toThrow();
    expect(emulator.count('get')).toBe(1);
  });

  it('creates the job behind a 500 when the service acted', async () => {
    const emulator = await start({ activePolls: 0 });
    emulator.script('create', { status: 500, json: { error: 'upstream timeout' }, acted: true });
    const failed = await create(emulator);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'upstream timeout' });

    expect(emulator.jobs.size).toBe(1);
    const [id] = [...emulator.jobs.keys()];
    expect((await job(await get(emulator, id ?? ''))).status).toBe('completed');
  });
});

describe('addressing', () => {
  it('serves under a base path', async () => {
    const emulator = await start({ basePath: '/agent-api/' });
    expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}/agent-api`);
    expect((await create(emulator)).status).toBe(201);

    const unprefixed = await fetch(`http://127.0.0.1:${emulator.port}/v2/agent/acme/job`, {
      method: 'POST',
      headers: jsonAuth,
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect(unprefixed.status).toBe(404);
    expect(emulator.violations).toEqual([expect.stringContaining('no such path')]);
  });

  it('decodes percent-encoded path parameters', async () => {
    const emulator = await start({ projects: ['acme docs/α'] });
    const project = encodeURIComponent('acme docs/α');
    const created = await create(emulator, 'x', project);
    expect(created.status).toBe(201);
    const { id } = await job(created);
    expect((await get(emulator, id, project)).status).toBe(200);

    expect(emulator.requests.map((request) => request.projectId)).toEqual(['acme docs/α', 'acme docs/α']);
    expect(emulator.requests[0]?.path).toBe(`/v2/agent/${project}/job`);
    expect(emulator.violations).toEqual([]);
  });
});
