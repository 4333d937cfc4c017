import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/secrets/secret-box.js';
import { resolveSecretKey } from '../../src/secrets/secret-key.js';

describe('secret key', () => {
  it('is generated once into the data directory with mode 0600, then reused', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'redline-secret-'));
    const first = resolveSecretKey(null, dir);
    expect(first.origin).toBe('generated');
    expect(first.key.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    const second = resolveSecretKey(null, dir);
    expect(second).toMatchObject({ origin: 'file', key: first.key });
    expect(readFileSync(first.file!, 'utf8').trim()).toBe(first.key);
  });

  it('prefers REDLINE_SECRET_KEY and writes nothing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'redline-secret-'));
    const s = resolveSecretKey('x'.repeat(40), dir);
    expect(s).toEqual({ key: 'x'.repeat(40), origin: 'environment' });
  });
});

describe('secret box', () => {
  it('round-trips, never stores the plaintext, and refuses another key', () => {
    const box = new SecretBox('k'.repeat(32));
    const sealed = box.encrypt('ghp_token_value');
    expect(sealed).not.toContain('ghp_token_value');
    expect(box.encrypt('ghp_token_value')).not.toBe(sealed);
    expect(box.decrypt(sealed)).toBe('ghp_token_value');
    expect(() => new SecretBox('z'.repeat(32)).decrypt(sealed)).toThrow(/REDLINE_SECRET_KEY/);
  });
});
