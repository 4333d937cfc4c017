import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An IP address as a certificate names it: four bytes, or sixteen for the IPv4-mapped IPv6 form
 * (`::ffff:127.0.0.1`), the one other form the tests use.
 */
function ipBytes(ip: string): Buffer {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const v4 = (mapped?.[1] ?? ip).split('.').map(Number);
  if (isIP(ip) === 4) return Buffer.from(v4);
  if (!mapped) throw new Error(`makeTestPki: only IPv4 and IPv4-mapped IPv6 addresses, not ${ip}`);
  return Buffer.from([...Array<number>(10).fill(0), 0xff, 0xff, ...v4]);
}

export interface TestPki {
  /** PEM of the test CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
}

/**
 * A private CA and a server certificate it signed, made fresh for each test file, like a
 * corporate CA that the runner's trust store does not know. Written in DER by hand (ECDSA P-256,
 * X.509 v3, valid for two days) so that no test starts openssl for it.
 */
export function makeTestPki(hostnames: string[]): TestPki {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = name('Test Corporate CA');
  const caCert = certificate({
    issuer: caName,
    subject: caName,
    publicKey: ca.publicKey,
    signer: ca.privateKey,
    issuerKey: ca.publicKey,
    extensions: [
      extension(BASIC_CONSTRAINTS, true, seq(bool(true))),
      // keyCertSign and cRLSign: bits 5 and 6, the last of seven bits used.
      extension(KEY_USAGE, true, tlv(0x03, Buffer.from([0x01, 0x06]))),
    ],
  });
  const serverCert = certificate({
    issuer: caName,
    subject: name(hostnames[0] ?? 'localhost'),
    publicKey: server.publicKey,
    signer: ca.privateKey,
    issuerKey: ca.publicKey,
    extensions: [
      extension(
        SUBJECT_ALT_NAME,
        false,
        seq(...hostnames.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii'))))),
      ),
      extension(EXTENDED_KEY_USAGE, false, seq(oid(SERVER_AUTH))),
    ],
  });

  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pem(caCert));
  return {
    caFile,
    key: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: pem(serverCert),
  };
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_KEY_ID = '2.5.29.14';
const KEY_USAGE = '2.5.29.15';
const SUBJECT_ALT_NAME = '2.5.29.17';
const BASIC_CONSTRAINTS = '2.5.29.19';
const AUTHORITY_KEY_ID = '2.5.29.35';
const EXTENDED_KEY_USAGE = '2.5.29.37';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const DAY_MS = 86_400_000;

function certificate(options: {
  issuer: Buffer;
  subject: Buffer;
  publicKey: KeyObject;
  signer: KeyObject;
  issuerKey: KeyObject;
  extensions: Buffer[];
}): Buffer {
  const algorithm = seq(oid(ECDSA_WITH_SHA256));
  // DER wants a positive INTEGER in its fewest bytes: a first byte of 0x01 to 0x7f is both, so
  // the serial is valid by construction (a random first byte of 0x00 would make it invalid).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) % 0x7f) + 1;
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    options.issuer,
    seq(utcTime(new Date(now - DAY_MS / 24)), utcTime(new Date(now + 2 * DAY_MS))),
    options.subject,
    options.publicKey.export({ type: 'spki', format: 'der' }),
    tlv(
      0xa3,
      seq(
        extension(SUBJECT_KEY_ID, false, tlv(0x04, keyId(options.publicKey))),
        extension(AUTHORITY_KEY_ID, false, seq(tlv(0x80, keyId(options.issuerKey)))),
        ...options.extensions,
      ),
    ),
  );
  return seq(tbs, algorithm, tlv(0x03, Buffer.from([0]), sign('sha256', tbs, options.signer)));
}

/** RFC 5280's method 1: the SHA-1 of the public key's bits. */
function keyId(key: KeyObject): Buffer {
  const spki = key.export({ type: 'spki', format: 'der' });
  // The last element of the SPKI is the BIT STRING; for P-256 its 65 bytes close the encoding.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
const bool = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));
const integer = (bytes: Buffer) =>
  tlv(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return tlv(0x17, Buffer.from(`${text}Z`, 'ascii'));
}

function name(commonName: string): Buffer {
  return seq(tlv(0x31, seq(oid(COMMON_NAME), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), tlv(0x04, value));
}

function pem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
