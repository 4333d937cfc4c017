// A GitHub call that a proxy refuses, in process over real sockets: the warning names the proxy's
// refusal and what fixes it, not a cancellation.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startConnectProxy, type TestProxy } from '../__fixtures__/proxy.js';

let proxy: TestProxy;
const saved = { api: process.env.GITHUB_API_URL, proxy: process.env.HTTPS_PROXY };
beforeAll(async () => {
  proxy = await startConnectProxy({}, 'auth');
  // @actions/github reads both when the client is made, as on the runner.
  process.env.GITHUB_API_URL = 'https://api.github.corp.test';
  process.env.HTTPS_PROXY = proxy.url;
});
afterAll(async () => {
  process.env.GITHUB_API_URL = saved.api;
  if (saved.proxy === undefined) delete process.env.HTTPS_PROXY;
  else process.env.HTTPS_PROXY = saved.proxy;
  await proxy.close();
});

it('a 407 from the proxy is named as the proxy refusing, with the fix', async () => {
  const { gitHubApi } = await import('../src/github/client.js');
  const { KeptComment } = await import('../src/github/comment.js');
  const warnings: string[] = [];
  const api = gitHubApi(
    'ghs_proxyTestToken0123456789',
    'github-proxy-test',
    process.env.GITHUB_API_URL ?? '',
  );
  const kept = new KeptComment(
    api,
    { owner: 'acme', repo: 'app', number: 7, pull: true, fork: false },
    '<!-- agent-job-action:000000000000000000000001 -->',
    (m) => warnings.push(m),
  );
  await kept.write('body', new AbortController().signal);
  expect(proxy.requests.length).toBeGreaterThan(0);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(
    'Could not post the comment on acme/app#7: the proxy refused the connection to GitHub (it answered 407: it wants credentials). Put the proxy',
  );
  expect(warnings[0]).not.toMatch(/cancel/i);
});
