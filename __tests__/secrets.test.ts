import { describe, expect, it } from '@jest/globals';
import { proxyPasswords } from '../src/service/dispatcher.js';
import { quote } from '../src/core/untrusted.js';
import { Redactor } from '../src/core/secrets.js';
import { cell } from '../src/core/untrusted.js';

const KEY = 'mint_9fQ2xK7LwP3zR8vT1yN6bH4cJ5dM0sA2e';

function redactor(...secrets: string[]): Redactor {
  const r = new Redactor();
  for (const s of secrets) r.add(s);
  return r;
}

describe('Redactor', () => {
  it('replaces every whole occurrence', () => {
    expect(redactor(KEY).redact(`a ${KEY} b ${KEY}`)).toBe('a *** b ***');
  });

  it('replaces a piece of 12 or more characters of a long secret, wherever it is cut', () => {
    const r = redactor(KEY);
    expect(r.redact(`token=${KEY.slice(0, 24)}… rejected`)).toBe('token=***… rejected');
    expect(r.redact(`…${KEY.slice(10, 22)}…`)).toBe('…***…');
    expect(r.redact(`${KEY.slice(0, 12)} and ${KEY.slice(-12)}`)).toBe('*** and ***');
  });

  it('leaves pieces shorter than 12 characters and unrelated text alone', () => {
    const r = redactor(KEY);
    expect(r.redact(`prefix ${KEY.slice(0, 11)} ok`)).toBe(`prefix ${KEY.slice(0, 11)} ok`);
    expect(r.redact('Job not found')).toBe('Job not found');
  });

  it('replaces a short secret only where it is whole', () => {
    const r = redactor('hunter2');
    expect(r.redact('proxy http://u:hunter2@p and hunter')).toBe('proxy http://u:***@p and hunter');
  });

  it('replaces a secret that contains another one whole', () => {
    const r = redactor('abcdef', 'xxabcdefxx');
    expect(r.redact('xxabcdefxx abcdef')).toBe('*** ***');
  });

  it('leaves values shorter than 6 characters alone: they would be cut out of ids and links', () => {
    const r = redactor('docs', '1');
    expect(r.redact('job_1 at https://github.com/acme/docs/pull/1')).toBe(
      'job_1 at https://github.com/acme/docs/pull/1',
    );
  });

  it('joins overlapping and touching pieces into one ***', () => {
    const r = redactor(KEY);
    expect(r.redact(`${KEY.slice(0, 20)}${KEY.slice(5, 30)}`)).toBe('***');
  });

  it('redacts every string of a parsed body, property names too, and keeps other values', () => {
    const r = redactor(KEY);
    expect(
      r.redactJson({
        error: `bad ${KEY}`,
        [KEY]: 1,
        list: [KEY, 2, null, true, { ref: KEY.slice(3, 30) }],
      }),
    ).toEqual({ error: 'bad ***', '***': 1, list: ['***', 2, null, true, { ref: '***' }] });
  });

  it('replaces a secret percent-encoded, in either case of hex', () => {
    const r = redactor('p@ss:w/rd+1%');
    expect(r.redact('proxy=p%40ss%3Aw%2Frd%2B1%25 and p%40ss%3aw%2frd%2b1%25')).toBe('proxy=*** and ***');
  });

  it('replaces a secret base64-encoded alone, and inside a longer encoded text at every alignment', () => {
    const r = redactor(KEY);
    expect(r.redact(Buffer.from(KEY).toString('base64'))).not.toContain(
      Buffer.from(KEY).toString('base64').slice(0, 12),
    );
    for (const before of ['Bearer ', 'x', 'xy', 'xyz', 'token=']) {
      const encoded = Buffer.from(`${before}${KEY}!`).toString('base64');
      const clean = r.redact(`Authorization: Basic ${encoded}`);
      expect(clean).toContain('***');
      // What is left is what encodes the text around the key, and a few characters at each end
      // that encode the key's first or last byte together with it.
      const left = clean.length - 'Authorization: Basic '.length - '***'.length;
      expect(left).toBeLessThanOrEqual(Math.ceil((before.length * 4) / 3) + 8);
    }
    const url = Buffer.from(`\u00ff\u00fe${KEY}`).toString('base64url');
    expect(r.redact(url)).toContain('***');
  });

  it('walks a reply nested 100,000 deep without running out of stack', () => {
    let deep: unknown = KEY;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { [KEY]: deep };
    let clean = redactor(KEY).redactJson(deep);
    for (let i = 100_000 - 1; i >= 0; i--) {
      clean = i % 2 ? (clean as unknown[])[0] : (clean as Record<string, unknown>)['***'];
    }
    expect(clean).toBe('***');
  });

  it('keeps a "__proto__" property a plain property', () => {
    const body = JSON.parse('{"__proto__": {"polluted": "x"}, "error": "e"}') as object;
    const clean = redactor(KEY).redactJson(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(Object.keys(clean)).toEqual(['__proto__', 'error']);
  });

  it('changes nothing when no secret is known', () => {
    const body = { error: KEY };
    expect(new Redactor().redactJson(body)).toBe(body);
    expect(new Redactor().redact(KEY)).toBe(KEY);
  });
});

describe('proxyPasswords', () => {
  it('reads the password of every proxy variable, as written and decoded', () => {
    expect(
      proxyPasswords({
        HTTPS_PROXY: 'http://builder:s3cr%40t@proxy:3128',
        http_proxy: 'user:plain@proxy:8080',
        HTTP_PROXY: 'http://nopass@proxy',
        https_proxy: 'not a url ::',
      }),
    ).toEqual(['s3cr%40t', 's3cr@t', 'plain', 'plain']);
  });

  it('keeps a password that is not valid percent-encoding as written', () => {
    expect(proxyPasswords({ HTTPS_PROXY: 'http://u:100%25%zz@proxy' })).toEqual(['100%25%zz']);
  });
});

describe('the printers redact before they shorten or escape', () => {
  it('quote and cell, with a key registered for the run', async () => {
    const { redactAlso } = await import('../src/core/secrets.js');
    const key = `mint_<a href='x'>&"Zq8WvR2nLp5Tx>`;
    redactAlso(key);
    expect(quote(`Key ${key} refused`)).toBe('"Key *** refused"');
    expect(cell(`Key ${key} refused`)).toBe('Key *** refused');
    // Cut first, a 10-character cell would have kept a piece the mask cannot match.
    expect(cell(key, 10)).toBe('***');
    expect(quote(key, 10)).toBe('"***"');
  });
});
