// A self-hosted runner behind a corporate proxy with a private CA (docs/design.md §6), through the
// bundle under Node 24: the service and GitHub are reached only through a CONNECT proxy, over TLS
// with a certificate from a test CA that Node trusts only from NODE_EXTRA_CA_CERTS, which it reads
// at start-up: only a process started with it shows that. The proxy rules that need no test CA
// (NO_PROXY, loopback, a silent or refusing proxy, an unknown CA) run in process, in
// run.proxy.test.ts.
import { describe, expect, it } from '@jest/globals';
import { corporateInputs, corporateNetwork, GITHUB_HOST, HOST } from '../__fixtures__/corporate.js';
import { run, warnings } from '../__fixtures__/e2e.js';
import { gitHubEnv, pullRequestEvent, world } from '../__fixtures__/github-world.js';

const net = corporateNetwork();

describe('behind a proxy', () => {
  it('goes through HTTPS_PROXY and trusts the CA in NODE_EXTRA_CA_CERTS', async () => {
    const { proxy, pki, service } = net;
    const before = proxy.requests.length;
    const result = await run({
      inputs: corporateInputs(net),
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
    const { proxy, pki } = net;
    const before = proxy.requests.length;
    const proxyWithCredentials = proxy.url.replace('http://', 'http://builder:s3cr%40t@');
    const result = await run({
      inputs: corporateInputs(net),
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
    const { proxy, pki, gh } = net;
    const { pr } = world(gh);
    const before = proxy.requests.length;
    const result = await run({
      inputs: { ...corporateInputs(net), comment: 'true' },
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
});
