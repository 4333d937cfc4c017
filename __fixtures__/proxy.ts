import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ConnectRequest {
  target: string;
  proxyAuthorization?: string;
}

export interface TestProxy {
  url: string;
  /** Every CONNECT received, in order. */
  requests: ConnectRequest[];
  close(): Promise<void>;
}

/**
 * A corporate-style forward proxy on loopback: it only tunnels (CONNECT), resolves the names in
 * `hosts` itself (the runner cannot resolve them), and records each tunnel asked for.
 */
export async function startConnectProxy(
  hosts: Record<string, string>,
  /** `silent`: accept connections and never answer; `auth`: answer 407 to every CONNECT. */
  mode: 'tunnel' | 'silent' | 'auth' = 'tunnel',
): Promise<TestProxy> {
  const requests: ConnectRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const [requestLine = '', ...headerLines] = head.slice(0, end).split('\r\n');
      const [method, target = ''] = requestLine.split(' ');
      const auth = headerLines.find((line) => /^proxy-authorization:/i.test(line));
      requests.push({ target, proxyAuthorization: auth?.replace(/^[^:]+:\s*/, '') });
      if (mode === 'silent') return;
      if (mode === 'auth') {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
        return;
      }
      if (method !== 'CONNECT') {
        client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        return;
      }
      // host:port, where an IPv6 host is in brackets.
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
      const upstream = connect(Number(target.slice(colon + 1)), hosts[host] ?? host);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
      upstream.on('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        if (rest.length) upstream.write(rest);
        client.pipe(upstream).pipe(client);
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
