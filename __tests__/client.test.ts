// The service over real sockets: how each HTTP result becomes a typed fault, and the one-line
// message each fault ends in (docs/design.md §3.4, §5).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { connect } from '../src/service/dispatcher.js';
import { AgentClient, nestedDeeperThan, ServiceError, type Fault } from '../src/service/client.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { explain } from '../src/service/errors.js';
import { makeTestPki } from '../__fixtures__/tls.js';

const KEY = 'mint_client_test_key';
let service: Emulator;
// The action's own dispatcher: it tells connect failures from later ones.
const { dispatcher } = connect('http://127.0.0.1');

beforeAll(async () => {
  service = await startEmulator({ apiKey: KEY });
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  await service.close();
  await dispatcher.close();
});

function client(baseUrl = service.url, projectId = 'proj'): AgentClient {
  return new AgentClient({ baseUrl, projectId, apiKey: KEY, dispatcher, userAgent: 'test' });
}

/** A client whose clock reads `now`, for the headers that name a time. */
function clientAt(now: number): AgentClient {
  return new AgentClient({
    baseUrl: service.url,
    projectId: 'proj',
    apiKey: KEY,
    dispatcher,
    userAgent: 'test',
    now: () => now,
  });
}

async function faultOf(call: Promise<unknown>): Promise<Fault> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return (error as ServiceError).fault;
  }
  throw new Error('expected a ServiceError');
}

describe('AgentClient', () => {
  it('creates, reads and follows up on a job', async () => {
    const created = await client().createJob('Write the intro');
    expect(created.status).toBe('active');
    const read = await client().getJob(created.id);
    expect(read.id).toBe(created.id);
    const followed = await client().sendMessage(created.id, 'Also the outro');
    expect(followed.id).toBe(created.id);
    const paths = service.requests.slice(-3).map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual([
      'POST /v2/agent/proj/job',
      `GET /v2/agent/proj/job/${created.id}`,
      `POST /v2/agent/proj/job/${created.id}/message`,
    ]);
  });

  it('percent-encodes ids in the path', async () => {
    service.script('get', { json: { id: 'a/b?c', status: 'active' } });
    await client(service.url, 'p q/r').getJob('a/b?c');
    expect(service.requests.at(-1)?.path).toBe('/v2/agent/p%20q%2Fr/job/a%2Fb%3Fc');
  });

  it('reads the status, Retry-After and the service message of an error reply', async () => {
    service.script('create', {
      status: 429,
      headers: { 'retry-after': '12' },
      json: { error: 'Rate limit exceeded' },
    });
    expect(await faultOf(client().createJob('x'))).toEqual({
      kind: 'http',
      status: 429,
      retryAfterMs: 12_000,
      serviceMessage: 'Rate limit exceeded',
    });
  });

  it.each([
    ['RateLimit-Reset (delta seconds)', { 'ratelimit-reset': '720' }, 720_000],
    [
      'RateLimit-Reset before X-RateLimit-Reset',
      { 'ratelimit-reset': '60', 'x-ratelimit-reset': '30' },
      60_000,
    ],
    ['X-RateLimit-Reset as delta seconds', { 'x-ratelimit-reset': '90' }, 90_000],
    ['X-RateLimit-Reset as epoch seconds', { 'x-ratelimit-reset': '1700000300' }, 300_000],
    [
      'X-RateLimit-Reset after a RateLimit-Reset of 0',
      { 'ratelimit-reset': '0', 'x-ratelimit-reset': '45' },
      45_000,
    ],
  ])('reads when the quota frees a use from %s', async (_what, headers, resetAfterMs) => {
    service.script('create', { status: 429, headers });
    const timed = clientAt(1_700_000_000_000);
    expect(await faultOf(timed.createJob('x'))).toEqual({
      kind: 'http',
      status: 429,
      resetAfterMs,
      serviceMessage: 'Rate limit exceeded',
    });
  });

  // A time of 0 or gone by would make the retries a burst; an absurd one is no plan: the fault
  // carries no time, and the caller backs off as after a reply that gave none.
  it.each([
    ['Retry-After: 0', { 'retry-after': '0' }],
    ['a Retry-After date gone by', { 'retry-after': 'Tue, 14 Nov 2023 22:00:00 GMT' }],
    ['a Retry-After date in the year 9999', { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }],
    ['a huge Retry-After', { 'retry-after': '99999999999999999999' }],
    ['X-RateLimit-Reset gone by', { 'x-ratelimit-reset': '1699999000' }],
    ['RateLimit-Reset of 0', { 'ratelimit-reset': '0' }],
    ['X-RateLimit-Reset in the year 9999', { 'x-ratelimit-reset': '253402300799' }],
    ['RateLimit-Reset of two days', { 'ratelimit-reset': '172800' }],
  ])('carries no time for %s', async (_what, headers) => {
    service.script('create', { status: 429, headers });
    const timed = clientAt(1_700_000_000_000);
    expect(await faultOf(timed.createJob('x'))).toEqual({
      kind: 'http',
      status: 429,
      serviceMessage: 'Rate limit exceeded',
    });
  });

  it('ignores a reset header it cannot read', async () => {
    service.script('create', {
      status: 429,
      headers: { 'ratelimit-reset': 'soon', 'x-ratelimit-reset': '-5' },
    });
    expect(await faultOf(client().createJob('x'))).not.toHaveProperty('resetAfterMs');
  });

  it('keeps what is not a job from counting as one', async () => {
    service.script(
      'get',
      { raw: '<html>' },
      { json: { status: 'active' } },
      { json: { id: '..', status: 'active' } },
    );
    for (let i = 0; i < 3; i++)
      expect(await faultOf(client().getJob('j'))).toEqual({ kind: 'not-a-job', status: 200 });
  });

  it('takes a reply about another job as a fault naming it, on a read and on a message', async () => {
    const created = await client().createJob('x');
    service.script('get', { json: { id: 'job_other', status: 'completed' } });
    expect(await faultOf(client().getJob(created.id))).toEqual({
      kind: 'other-job',
      status: 200,
      id: 'job_other',
    });
    service.script('message', { json: { id: 'job_other', status: 'active' } });
    expect(await faultOf(client().sendMessage(created.id, 'more'))).toEqual({
      kind: 'other-job',
      status: 200,
      id: 'job_other',
    });
    // A create names no job: whatever id it gets is the new job's.
    service.script('create', { json: { id: 'job_new', status: 'active' } });
    expect((await client().createJob('x')).id).toBe('job_new');
  });

  it('takes a reply nested deeper than 64 as not a job, on create and in an error, without a crash', async () => {
    const deep = (n: number) => `{"id":"j","status":"active","x":${'['.repeat(n)}${']'.repeat(n)}}`;
    const json = { 'content-type': 'application/json' };
    service.script('create', { status: 201, raw: deep(20_000), headers: json });
    expect(await faultOf(client().createJob('p'))).toEqual({ kind: 'not-a-job', status: 201 });
    service.script('get', {
      status: 403,
      raw: `{"error":"no","x":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
      headers: json,
    });
    expect(await faultOf(client().getJob('j'))).toEqual({
      kind: 'http',
      status: 403,
      serviceMessage: undefined,
    });
    // Up to the bound, a deep field is kept as the service sent it.
    service.script('get', { raw: deep(63), headers: json });
    expect((await client().getJob('j')).x).toEqual((JSON.parse(deep(63)) as { x: unknown }).x);
  });

  it('counts depth outside strings only', () => {
    expect(nestedDeeperThan('[[["[[[[[[[[[[[\\"[[["]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
  });

  it('refuses a reply larger than 1 MiB as not a job', async () => {
    service.script('get', { json: { id: 'j', status: 'active', padding: 'x'.repeat(2 * 1024 * 1024) } });
    expect(await faultOf(client().getJob('j'))).toEqual({ kind: 'not-a-job', status: 200 });
  });

  it('tells a connection that never opened from one that broke', async () => {
    const closed = await startEmulator();
    const url = closed.url;
    await closed.close();
    expect(await faultOf(client(url).createJob('x'))).toEqual({ kind: 'not-sent', code: 'ECONNREFUSED' });

    service.script('create', { drop: 'before-reply' });
    expect(await faultOf(client().createJob('x'))).toMatchObject({ kind: 'no-answer' });
  });

  it('times out a slow reply as no answer', async () => {
    service.script('get', { hold: true });
    expect(await faultOf(client().getJob('j', { timeoutMs: 200 }))).toEqual({
      kind: 'no-answer',
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
  });

  it('does not follow redirects, so the key never goes to another host', async () => {
    const other = await startEmulator({ apiKey: KEY });
    const redirecting: Server = createServer((_req, res) => {
      res.writeHead(307, { location: `${other.url}/v2/agent/proj/job` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const { port } = redirecting.address() as { port: number };
    expect(await faultOf(client(`http://127.0.0.1:${port}`).createJob('x'))).toMatchObject({
      kind: 'http',
      status: 307,
    });
    expect(other.requests).toEqual([]);
    await new Promise((resolve) => redirecting.close(resolve));
    await other.close();
  });

  it('reports an untrusted certificate as a TLS fault', async () => {
    const pki = makeTestPki(['127.0.0.1']);
    const tls = await startEmulator({ apiKey: KEY, tls: { key: pki.key, cert: pki.cert } });
    expect(await faultOf(client(tls.url).createJob('x'))).toMatchObject({ kind: 'tls' });
    expect(tls.requests).toEqual([]);
    await tls.close();
  });
});

describe('explain', () => {
  const base = { baseUrl: 'https://api.example.com', projectId: 'proj' };
  const http = (status: number, serviceMessage?: string): Fault => ({ kind: 'http', status, serviceMessage });

  it.each<[string, Fault, Parameters<typeof explain>[1], string]>([
    [
      '400 on create',
      http(400, 'prompt missing'),
      { ...base, operation: 'create' },
      'The service rejected the request to create the job as invalid (400). The service said: "prompt missing". Check the prompt and projectId inputs.',
    ],
    [
      '401',
      http(401),
      { ...base, operation: 'get' },
      'The service rejected the API key (401): it is missing, mistyped, expired or revoked. Put a valid admin API key in the secret passed as apiKey.',
    ],
    [
      '403',
      http(403),
      { ...base, operation: 'create' },
      "The API key is not allowed to do this (403): it lacks the write scope, or this runner's IP address is not on the key's allowlist. Use an admin key with write access, or allow the runner's address.",
    ],
    [
      '404 on create',
      http(404),
      { ...base, operation: 'create' },
      'No project proj at https://api.example.com (404). Check the projectId and baseUrl inputs.',
    ],
    [
      '404 on get',
      http(404),
      { ...base, operation: 'get', jobId: 'job_1' },
      'Agent job job_1 was not found in project proj at https://api.example.com (404).',
    ],
    [
      '429',
      http(429),
      { ...base, operation: 'create' },
      "The service's rate limit (429) did not clear in time: a project gets 100 uses an hour, each new job and each follow-up message counting as one, and the reply gave no usable time for when the oldest use ages out (without one the action retries for only about a minute). Wait and run again later, or space out the workflow's runs.",
    ],
    [
      '429 whose stated wait does not fit in the time left, in words',
      { kind: 'http', status: 429, retryAfterMs: 3 * 3_600_000 },
      { ...base, operation: 'create', leftMs: 12 * 60_000 + 5_000 },
      'the reply says the oldest use ages out in about 3 hours, and the timeout has about 12 minutes left.',
    ],
    [
      '429 on a follow-up, with Retry-After',
      { kind: 'http', status: 429, retryAfterMs: 12 * 60_000 + 20_000 },
      { ...base, operation: 'message', jobId: 'job_1' },
      "The service's rate limit (429) did not clear in time: a project gets 100 uses an hour, each new job and each follow-up message counting as one, and the reply says the oldest use ages out in about 12 minutes. Wait that long and run again, raise the timeout input so the action waits for the quota, or space out the workflow's runs.",
    ],
    [
      '429 with only a reset header, due in seconds',
      { kind: 'http', status: 429, resetAfterMs: 20_000 },
      { ...base, operation: 'create' },
      'the reply says the oldest use ages out in under a minute.',
    ],
    [
      '429 with both: Retry-After first',
      { kind: 'http', status: 429, retryAfterMs: 60_000, resetAfterMs: 3 * 3_600_000 },
      { ...base, operation: 'create' },
      'the reply says the oldest use ages out in about 1 minute.',
    ],
    [
      '500 on create',
      http(500),
      { ...base, operation: 'create' },
      'api.example.com gave HTTP 500 to the request to create the job: the job may have been created anyway, so the action does not send it again (the service has no idempotency key). Look for a new agent job in project proj before you re-run.',
    ],
    [
      'a broken connection on create',
      { kind: 'no-answer', code: 'ECONNRESET' },
      { ...base, operation: 'create' },
      'api.example.com gave no complete answer (ECONNRESET) to the request to create the job: the job may have been created anyway',
    ],
    [
      'a reply about another job, on a poll',
      { kind: 'other-job', status: 200, id: 'job_2' },
      { ...base, operation: 'get', jobId: 'job_1' },
      'Agent job job_1 could not be read from api.example.com: HTTP 200 with another job (job_2).',
    ],
    [
      'a reply about another job, on a follow-up',
      { kind: 'other-job', status: 200, id: 'job_2' },
      { ...base, operation: 'message', jobId: 'job_1' },
      'api.example.com gave HTTP 200 with another job (job_2) to the follow-up message: the message may have reached the job anyway, so the action does not send it again. Check agent job job_1 before you re-run.',
    ],
    [
      'a redirect',
      http(302),
      { ...base, operation: 'create' },
      'The service answered the request to create the job with a redirect (302); set baseUrl to the address the API is served at.',
    ],
    [
      'refused, 4 tries, through a proxy',
      { kind: 'not-sent', code: 'ECONNREFUSED' },
      { ...base, operation: 'create', tries: 4, proxy: 'http://proxy:3128' },
      'Could not connect to api.example.com through the proxy http://proxy:3128 (ECONNREFUSED) after 4 tries.',
    ],
    [
      'DNS',
      { kind: 'not-sent', code: 'ENOTFOUND' },
      { ...base, operation: 'create' },
      'Could not resolve the host api.example.com (ENOTFOUND).',
    ],
    [
      'TLS',
      { kind: 'tls', code: 'SELF_SIGNED_CERT_IN_CHAIN' },
      { ...base, operation: 'get' },
      'The TLS certificate of api.example.com was not accepted (SELF_SIGNED_CERT_IN_CHAIN). If your network uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate.',
    ],
  ])('%s', (_name, fault, context, message) => {
    const text = explain(fault, context);
    expect(text).toContain(message);
    expect(text).not.toMatch(/[\r\n]/);
  });

  it('quotes the service text so it cannot become a command', () => {
    const text = explain(http(400, '\n::error::x'), { ...base, operation: 'create' });
    expect(text).toContain('"\\u000a::error::x"');
  });
});

describe('what counts as never sent', () => {
  /** A server that accepts TCP connections and drops them at once, before reading anything. */
  async function dropper(): Promise<{ port: number; close: () => Promise<void> }> {
    const server = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as { port: number }).port,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it('a reset during the TLS handshake: the request never left', async () => {
    const server = await dropper();
    const fault = await faultOf(client(`https://127.0.0.1:${server.port}`).createJob('x'));
    expect(fault).toMatchObject({ kind: 'not-sent' });
    await server.close();
  });

  it('the same reset once the connection was open: the service may have acted', async () => {
    const server = await dropper();
    const fault = await faultOf(client(`http://127.0.0.1:${server.port}`).createJob('x'));
    expect(fault).toMatchObject({ kind: 'no-answer' });
    await server.close();
  });
});
