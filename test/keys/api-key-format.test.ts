import { describe, expect, it } from 'vitest';
import { checksum, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/keys/api-key-format.js';

describe('API key format', () => {
  it('is rdl_ + 32 base62 + 6 base62 of CRC32 over the random part', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^rdl_[0-9A-Za-z]{38}$/);
      expect(key.slice(36)).toBe(checksum(key.slice(4, 36)));
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects a mistyped key by its checksum alone', () => {
    const key = generateApiKey();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.replace('rdl_', 'rdk_'))).toBe(false);
    expect(isWellFormedApiKey(key + 'x')).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('stores only a SHA-256 of the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(4));
  });
});
