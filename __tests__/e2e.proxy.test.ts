// A self-hosted runner behind a corporate proxy with a private CA (docs/design.md §6): the service is
// reached only through a CONNECT proxy, over TLS with a certificate from a test CA.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGitHubEmulator, type GitHubEmulator } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { expectFailure, KEY, run, warnings } from '../__fixtures__/e2e.js';
import { gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';
import { startConnectProxy, type TestProxy } from '../__fixtures__/proxy.js';
import { makeTestPki, type TestPki } from '../__fixtures__/tls.js';

// A name only the proxy can resolve, as for a service reachable only through the proxy.
const HOST = 'docs-api.corp.test';
// A GitHub Enterprise Server the runner, too, reaches only through the proxy.
const GITHUB_HOST = 'github.corp.test';
let pki: TestPki;
let gh: GitHubEmulator;
let service: Emulator;
let plain: Emulator;
let proxy: TestProxy;
let baseUrl: string;

beforeAll(async () => {
  pki = makeTestPki([HOST, GITHUB_HOST]);
  service = await startEmulator({ apiKey: KEY, activePolls: 1, tls: { key: pki.key, cert: pki.cert } });
  plain = await startEmulator({ apiKey: KEY, activePolls: 0 });
  gh = await startGitHubEmulator({
    prefix: '/api/v3',
    hostname: GITHUB_HOST,
    tls: { key: pki.key, cert: pki.cert },
  });
  proxy = await startConnectProxy({ [HOST]: '127.0.0.1', [GITHUB_HOST]: '127.0.0.1' });
  baseUrl = `https://${HOST}:${service.port}`;
});
afterAll(async () => {
  expect(service.violations).toEqual([]);
  expect(gh.violations).toEqual([]);
  await Promise.all([service.close(), plain.close(), proxy.close(), gh.close()]);
});

const inputs = (url = baseUrl) => ({
  prompt: 'Refresh the changelog',
  projectId: 'corp',
  apiKey: KEY,
  baseUrl: url,
  pollInterval: '1s',
});

describe('behind a proxy', () => {
  it('goes through HTTPS_PROXY and trusts the CA in NODE_EXTRA_CA_CERTS', async () => {
    const before = proxy.requests.length;
    const result = await run({
      inputs: inputs(),
      env: { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('completed');
    const tunnels = proxy.requests.slice(before);
    expect(tunnels.length).toBeGreaterThanOrEqual(1);
    expect(tunnels.every((t) => t.target === `${HOST}:${service.port}`)).toBe(true);
    expect(result.stdout).toContain(`Using the proxy ${proxy.url}.`);
  });

  it('reads the lower-case https_proxy too, and sends proxy credentials without printing them', async () => {
    const before = proxy.requests.length;
    const proxyWithCredentials = proxy.url.replace('http://', 'http://builder:s3cr%40t@');
    const result = await run({
      inputs: inputs(),
      env: { https_proxy: proxyWithCredentials, NODE_EXTRA_CA_CERTS: pki.caFile },
      secrets: ['s3cr@t', 's3cr%40t'],
    });
    expect(result.code).toBe(0);
    expect(proxy.requests[before]?.proxyAuthorization).toBe(
      `Basic ${Buffer.from('builder:s3cr@t').toString('base64')}`,
    );
    // Masked like the key, as written and decoded: an error from the proxy may quote its URL.
    const masked = result.commands.filter((c) => c.name === 'add-mask').map((c) => c.data);
    expect(masked).toEqual(expect.arrayContaining(['s3cr%2540t', 's3cr@t']));
  });

  it('reaches GitHub through the same proxy: the comment, its GraphQL identity query and all', async () => {
    const { pr } = world(gh);
    const before = proxy.requests.length;
    const result = await run({
      inputs: { ...inputs(), comment: 'true' },
      env: { ...gitHubEnv(gh), HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: pki.caFile },
      event: pullRequestEvent(pr.number),
    });
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(pr.comments).toHaveLength(1);
    expect(result.outputs.commentUrl).toContain(`https://${GITHUB_HOST}:${gh.port}/acme/app/pull/`);
    // Only the proxy can resolve the name: every GitHub call went through a tunnel.
    const tunnels = proxy.requests.slice(before).map((r) => r.target);
    expect(tunnels).toContain(`${GITHUB_HOST}:${gh.port}`);
    expect(gh.requests.map((r) => r.route)).toEqual(
      expect.arrayContaining(['graphql', 'listComments', 'createComment', 'updateComment']),
    );
  });

  it('says to set NODE_EXTRA_CA_CERTS when the certificate is from an unknown CA', async () => {
    const before = service.requests.length;
    const result = await run({ inputs: inputs(), env: { HTTPS_PROXY: proxy.url } });
    expectFailure(result, `The TLS certificate of ${HOST}:${service.port} was not accepted`);
    expect(result.stderr + result.stdout).toContain('NODE_EXTRA_CA_CERTS');
    expect(service.requests.length).toBe(before);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const before = proxy.requests.length;
    const result = await run({
      inputs: { ...inputs(), timeout: '2s' },
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: `localhost,.corp.test`, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    // Direct, this runner cannot even resolve the name: proof that the proxy was skipped.
    expectFailure(result, `Could not resolve the host ${HOST} (ENOTFOUND) after 2 tries.`);
    expect(proxy.requests.length).toBe(before);
  });

  it('does not hang on a proxy that never answers the CONNECT: nothing was sent', async () => {
    const silent = await startConnectProxy({}, 'silent');
    const result = await run({
      inputs: { ...inputs(), timeout: '2s' },
      env: { HTTPS_PROXY: silent.url, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expectFailure(result, `Could not connect to ${HOST}:${service.port} through the proxy ${silent.url}`);
    expect(silent.requests).toHaveLength(1);
    await silent.close();
  });

  it('names the proxy when it refuses the tunnel', async () => {
    const refusing = await startConnectProxy({}, 'auth');
    const result = await run({
      inputs: { ...inputs(), timeout: '2s' },
      env: { HTTPS_PROXY: refusing.url, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expectFailure(result, `through the proxy ${refusing.url} (the proxy answered 407)`);
    await refusing.close();
  });

  it('never sends loopback traffic to the proxy', async () => {
    const before = proxy.requests.length;
    const result = await run({
      inputs: inputs(plain.url),
      env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url },
    });
    expect(result.code).toBe(0);
    expect(proxy.requests.length).toBe(before);
  });
});
