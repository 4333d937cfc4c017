import { getProxyUrl } from '@actions/http-client';
import { Agent, buildConnector, Pool, ProxyAgent, type Dispatcher } from 'undici';

export interface Connection {
  dispatcher: Dispatcher;
  /** The proxy in use (scheme, host and port only), for messages; `undefined` when going direct. */
  proxy?: string;
}

/** Opening a connection (DNS, TCP, a proxy tunnel, TLS) gets this long, as undici's default. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Errors raised while the connection was being opened, before any byte of the request was
 * written. Telling them apart by the phase they happened in, not by their error code, is what
 * makes a retried create safe: the same code (a reset, an unreachable host) can also come after
 * the request went out, when the service may have acted on it.
 */
const connectFailures = new WeakSet<object>();

export function failedBeforeSending(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (connectFailures.has(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

type Connect = buildConnector.connector;

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];

/**
 * The passwords in the proxy variables the toolkit reads, as written and decoded: secrets like
 * the key, since an error from the proxy or the HTTP stack may quote the proxy's URL.
 */
export function proxyPasswords(env: NodeJS.ProcessEnv): string[] {
  const passwords: string[] = [];
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim();
    if (!value) continue;
    let url: URL;
    try {
      // The toolkit takes a proxy without a scheme as http.
      url = new URL(value.includes('://') ? value : `http://${value}`);
    } catch {
      continue;
    }
    if (!url.password) continue;
    passwords.push(url.password);
    try {
      passwords.push(decodeURIComponent(url.password));
    } catch {
      // Not valid percent-encoding: the password as written is all there is.
    }
  }
  return passwords;
}

function marking(connect: Connect): Connect {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error) {
        connectFailures.add(error);
        callback(error, null);
      } else {
        callback(null, socket);
      }
    });
}

/**
 * The dispatcher for every request to `baseUrl`: the service's, and each GitHub client's (the
 * run's GitHub, github.com), each decided for its own URL when it is made. The proxy rules are the
 * toolkit's own (`@actions/http-client`): `https_proxy`/`HTTPS_PROXY` for https,
 * `http_proxy`/`HTTP_PROXY` for http, `no_proxy`/`NO_PROXY` entries and loopback hosts go direct.
 * So a runner that reaches GitHub through its proxy reaches the service the same way. A private CA in
 * `NODE_EXTRA_CA_CERTS` needs nothing here: Node adds it to the default trust store that undici
 * uses, for the proxy and the service alike.
 */
export function connect(baseUrl: string): Connection {
  const proxyUrl = getProxyUrl(baseUrl);
  if (!proxyUrl) {
    return { dispatcher: new Agent({ connect: marking(buildConnector({ timeout: CONNECT_TIMEOUT_MS })) }) };
  }
  const proxy = new URL(proxyUrl);
  const dispatcher = new ProxyAgent({
    // Credentials in the proxy URL become a Proxy-Authorization header, as in the toolkit.
    uri: proxy.href,
    proxyTls: { timeout: CONNECT_TIMEOUT_MS },
    requestTls: { timeout: CONNECT_TIMEOUT_MS },
    // The CONNECT itself is a request to the proxy: without this, a proxy that accepts the
    // connection and never answers would hold the step for undici's default of 300 s.
    clientFactory: (origin, options) =>
      new Pool(origin, { ...options, headersTimeout: CONNECT_TIMEOUT_MS, bodyTimeout: CONNECT_TIMEOUT_MS }),
    // Each connection to the service is opened by the tunnel function ProxyAgent passes here.
    factory: (origin, options) => {
      const tunnel = (options as { connect?: Connect }).connect;
      return new Pool(origin, tunnel ? { ...options, connect: marking(tunnel) } : options);
    },
  });
  return { dispatcher, proxy: `${proxy.protocol}//${proxy.host}` };
}
