import { afterAll, beforeAll, expect } from '@jest/globals';
import { startGitHubEmulator, type GitHubEmulator } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { KEY } from './e2e.js';
import { startConnectProxy, type TestProxy } from './proxy.js';
import { makeTestPki, type TestPki } from './tls.js';

/** A name only the proxy can resolve, as for a service reachable only through the proxy. */
export const HOST = 'docs-api.corp.test';
/** A GitHub Enterprise Server the runner, too, reaches only through the proxy. */
export const GITHUB_HOST = 'github.corp.test';
/**
 * The service's own address, written so that no proxy rule takes it for loopback (the toolkit's
 * rule knows `localhost`, `127.*` and `[::1]`): IPv4's loopback as IPv6 writes it. A run that goes
 * direct reaches it with no name to resolve, so no test asks DNS anything.
 */
export const MAPPED_LOOPBACK = '::ffff:127.0.0.1';

export interface CorporateNetwork {
  pki: TestPki;
  /** The service over TLS, with a certificate from the test CA, at `baseUrl`. */
  service: Emulator;
  /** The service in plain http on loopback. */
  plain: Emulator;
  gh: GitHubEmulator;
  proxy: TestProxy;
  baseUrl: string;
}

/**
 * A self-hosted runner's network behind a corporate proxy with a private CA (docs/design.md §6),
 * set up once for a test file's tests and closed after them, every emulator having kept its
 * contract. Read its parts inside the tests: they exist once `beforeAll` has run.
 */
export function corporateNetwork(): CorporateNetwork {
  const network = {} as CorporateNetwork;
  beforeAll(async () => {
    const pki = makeTestPki([HOST, GITHUB_HOST, MAPPED_LOOPBACK]);
    const tls = { key: pki.key, cert: pki.cert };
    const service = await startEmulator({ apiKey: KEY, activePolls: 1, tls });
    Object.assign(network, {
      pki,
      service,
      plain: await startEmulator({ apiKey: KEY, activePolls: 0 }),
      gh: await startGitHubEmulator({ prefix: '/api/v3', hostname: GITHUB_HOST, tls }),
      proxy: await startConnectProxy({ [HOST]: '127.0.0.1', [GITHUB_HOST]: '127.0.0.1' }),
      baseUrl: `https://${HOST}:${service.port}`,
    });
  });
  afterAll(async () => {
    const { service, plain, gh, proxy } = network;
    expect(service.violations).toEqual([]);
    expect(gh.violations).toEqual([]);
    await Promise.all([service.close(), plain.close(), proxy.close(), gh.close()]);
  });
  return network;
}

/** The inputs of a run against the network's service, at `url` if given. */
export function corporateInputs(network: CorporateNetwork, url = network.baseUrl): Record<string, string> {
  return {
    prompt: 'Refresh the changelog',
    projectId: 'corp',
    apiKey: KEY,
    baseUrl: url,
    pollInterval: '1s',
  };
}
