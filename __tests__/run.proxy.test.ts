// A self-hosted runner behind a corporate proxy (docs/design.md §6), with run() in this process:
// the proxy variables are read when the run connects, so NO_PROXY, loopback, a proxy that never
// answers or refuses the tunnel, and a certificate from a CA the runner does not trust need no
// process. What needs the test CA trusted through NODE_EXTRA_CA_CERTS (read at start-up) runs
// through the bundle, in e2e.proxy.test.ts.
import { describe, expect, it } from '@jest/globals';
import { corporateInputs, corporateNetwork, HOST, MAPPED_LOOPBACK } from '../__fixtures__/corporate.js';
import { expectFailure, runHere } from '../__fixtures__/e2e.js';
import { startConnectProxy } from '../__fixtures__/proxy.js';

const net = corporateNetwork();

/** The service at IPv4's loopback as IPv6 writes it, which the URL parser writes [::ffff:7f00:1]. */
function mappedUrl(port: number): string {
  return `https://[${MAPPED_LOOPBACK}]:${port}`;
}

describe('behind a proxy', () => {
  it('says to set NODE_EXTRA_CA_CERTS when the certificate is from an unknown CA', async () => {
    const { proxy, service } = net;
    const before = service.requests.length;
    const result = await runHere({ inputs: corporateInputs(net), env: { HTTPS_PROXY: proxy.url } });
    expectFailure(result, `The TLS certificate of ${HOST}:${service.port} was not accepted`);
    expect(result.stderr + result.stdout).toContain('NODE_EXTRA_CA_CERTS');
    expect(service.requests.length).toBe(before);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const { proxy, service } = net;
    const before = proxy.requests.length;
    const result = await runHere({
      inputs: { ...corporateInputs(net, mappedUrl(service.port)), timeout: '2s' },
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: `localhost,${new URL(mappedUrl(service.port)).hostname}` },
    });
    // The service's own certificate, unknown to this process (NODE_EXTRA_CA_CERTS is read at
    // start-up), reached with no proxy and no name to resolve: the run went direct.
    expectFailure(result, `The TLS certificate of [::ffff:7f00:1]:${service.port} was not accepted`);
    expect(proxy.requests.length).toBe(before);
  });

  it('goes through the proxy for the same address when NO_PROXY does not name it', async () => {
    const { proxy, service } = net;
    const before = proxy.requests.length;
    const result = await runHere({
      inputs: { ...corporateInputs(net, mappedUrl(service.port)), timeout: '2s' },
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost' },
    });
    // The same certificate, reached through the proxy's tunnel this time.
    expectFailure(result, `The TLS certificate of [::ffff:7f00:1]:${service.port} was not accepted`);
    expect(proxy.requests.length).toBe(before + 1);
  });

  it('does not hang on a proxy that never answers the CONNECT: nothing was sent', async () => {
    const { pki, service } = net;
    const silent = await startConnectProxy({}, 'silent');
    const result = await runHere({
      inputs: { ...corporateInputs(net), timeout: '2s' },
      env: { HTTPS_PROXY: silent.url, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expectFailure(result, `Could not connect to ${HOST}:${service.port} through the proxy ${silent.url}`);
    expect(silent.requests).toHaveLength(1);
    await silent.close();
  });

  it('names the proxy when it refuses the tunnel', async () => {
    const { pki } = net;
    const refusing = await startConnectProxy({}, 'auth');
    const result = await runHere({
      inputs: { ...corporateInputs(net), timeout: '2s' },
      env: { HTTPS_PROXY: refusing.url, NODE_EXTRA_CA_CERTS: pki.caFile },
    });
    expectFailure(result, `through the proxy ${refusing.url} (the proxy answered 407)`);
    await refusing.close();
  });

  it('never sends loopback traffic to the proxy', async () => {
    const { proxy, plain } = net;
    const before = proxy.requests.length;
    const result = await runHere({
      inputs: corporateInputs(net, plain.url),
      env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url },
    });
    expect(result.code).toBe(0);
    expect(proxy.requests.length).toBe(before);
  });
});
