import { getProxyUrl } from '@actions/http-client';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';

export interface Connection {
  dispatcher: Dispatcher;
  /** The proxy in use (scheme, host and port only), for messages; `undefined` when going direct. */
  proxy?: string;
}

/**
 * The dispatcher for every request to `baseUrl`. The proxy rules are the toolkit's own
 * (`@actions/http-client`): `https_proxy`/`HTTPS_PROXY` for https, `http_proxy`/`HTTP_PROXY` for
 * http, `no_proxy`/`NO_PROXY` entries and loopback hosts go direct. So a runner that reaches
 * GitHub through its proxy reaches the service the same way. A private CA in
 * `NODE_EXTRA_CA_CERTS` needs nothing here: Node adds it to the default trust store that undici
 * uses, for the proxy and the service alike. undici's connect timeout (10 s) applies to both.
 */
export function connect(baseUrl: string): Connection {
  const proxyUrl = getProxyUrl(baseUrl);
  if (!proxyUrl) return { dispatcher: new Agent() };
  const proxy = new URL(proxyUrl);
  // Credentials in the proxy URL become a Proxy-Authorization header, as in the toolkit.
  return { dispatcher: new ProxyAgent({ uri: proxy.href }), proxy: `${proxy.protocol}//${proxy.host}` };
}
