import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  /** PEM of the test CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
}

/**
 * A private CA and a server certificate it signed, made fresh with openssl for each test file,
 * like a corporate CA that the runner's trust store does not know.
 */
export function makeTestPki(hostnames: string[]): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Test Corporate CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${hostnames[0]}`,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  const san = hostnames.map((h) => (/^[\d.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(file('server.ext'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );

  return {
    caFile: file('ca.pem'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
  };
}
